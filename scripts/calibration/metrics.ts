/**
 * How well a probability means what it says, on labelled pairs: Brier score, expected
 * calibration error over ten equal-width bins (with the counts, since a bin of five pairs
 * says little), precision and recall per confidence band, and the observed rate at or above
 * 0.90 with a Wilson interval, which is the "0.90 means 9 in 10" check.
 */
import { BAND_FLOORS, BANDS, bandOf, type Band } from '../../src/domain/screening/bands.ts';

export interface Scored {
  probability: number;
  label: 0 | 1;
}

export interface ReliabilityBin {
  lower: number;
  upper: number;
  count: number;
  positives: number;
  meanProbability: number;
  observedRate: number;
}

export interface BandRow {
  band: Band;
  count: number;
  positives: number;
  /** Positives among the pairs in this band (the band's precision). */
  precision: number;
  /** Share of all positives that fall in this band. */
  recall: number;
  /** Positives among pairs at or above this band's floor. */
  precisionAtOrAbove: number;
  /** Share of all positives at or above this band's floor. */
  recallAtOrAbove: number;
}

export interface Interval {
  rate: number;
  low: number;
  high: number;
  count: number;
  positives: number;
}

export function brierScore(scored: readonly Scored[]): number {
  if (scored.length === 0) return Number.NaN;
  return scored.reduce((sum, s) => sum + (s.probability - s.label) ** 2, 0) / scored.length;
}

export function reliabilityBins(scored: readonly Scored[], bins = 10): ReliabilityBin[] {
  const rows = Array.from({ length: bins }, (_, i) => ({ lower: i / bins, upper: (i + 1) / bins, count: 0, positives: 0, sum: 0 }));
  for (const s of scored) {
    const row = rows[Math.min(bins - 1, Math.floor(s.probability * bins))]!;
    row.count += 1;
    row.positives += s.label;
    row.sum += s.probability;
  }
  return rows.map((r) => ({
    lower: r.lower,
    upper: r.upper,
    count: r.count,
    positives: r.positives,
    meanProbability: r.count === 0 ? Number.NaN : r.sum / r.count,
    observedRate: r.count === 0 ? Number.NaN : r.positives / r.count,
  }));
}

/** Σ (bin count / N) · |mean probability − observed rate| over non-empty bins. */
export function expectedCalibrationError(scored: readonly Scored[], bins = 10): number {
  if (scored.length === 0) return Number.NaN;
  return reliabilityBins(scored, bins)
    .filter((b) => b.count > 0)
    .reduce((sum, b) => sum + (b.count / scored.length) * Math.abs(b.meanProbability - b.observedRate), 0);
}

/** Wilson score interval at 95 %: honest for small counts and rates near 0 or 1. */
export function wilson(positives: number, count: number, z = 1.96): Interval {
  if (count === 0) return { rate: Number.NaN, low: Number.NaN, high: Number.NaN, count, positives };
  const p = positives / count;
  const denominator = 1 + (z * z) / count;
  const centre = (p + (z * z) / (2 * count)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / count + (z * z) / (4 * count * count))) / denominator;
  return { rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half), count, positives };
}

export function rateAtOrAbove(scored: readonly Scored[], threshold: number): Interval {
  const above = scored.filter((s) => s.probability >= threshold);
  return wilson(
    above.reduce((n, s) => n + s.label, 0),
    above.length,
  );
}

const floorOf = (band: Band): number => (band === 'unlikely' ? 0 : BAND_FLOORS[band]);

export function bandTable(scored: readonly Scored[]): BandRow[] {
  const totalPositives = scored.reduce((n, s) => n + s.label, 0);
  return BANDS.map((band) => {
    const inBand = scored.filter((s) => bandOf(s.probability) === band);
    const atOrAbove = scored.filter((s) => s.probability >= floorOf(band));
    const positives = inBand.reduce((n, s) => n + s.label, 0);
    const positivesAbove = atOrAbove.reduce((n, s) => n + s.label, 0);
    return {
      band,
      count: inBand.length,
      positives,
      precision: inBand.length === 0 ? Number.NaN : positives / inBand.length,
      recall: totalPositives === 0 ? Number.NaN : positives / totalPositives,
      precisionAtOrAbove: atOrAbove.length === 0 ? Number.NaN : positivesAbove / atOrAbove.length,
      recallAtOrAbove: totalPositives === 0 ? Number.NaN : positivesAbove / totalPositives,
    };
  });
}

/**
 * Spread of the ECE when whole queries are resampled with replacement (pairs of one query
 * share a seed name and move together): the noise a single held-out figure carries.
 */
export function bootstrapEce(groups: readonly (readonly Scored[])[], random: () => number, rounds = 200): { mean: number; sd: number } {
  const values: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const sample: Scored[] = [];
    for (let i = 0; i < groups.length; i += 1) sample.push(...groups[Math.floor(random() * groups.length)]!);
    values.push(expectedCalibrationError(sample));
  }
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return { mean, sd: Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length) };
}
