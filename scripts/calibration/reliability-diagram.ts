/**
 * Draws the held-out reliability diagram: mean predicted probability against observed
 * positive rate per bin, one series per entity type, with 95 % Wilson intervals as vertical
 * bars, the diagonal a calibrated model would sit on, the band floors (0.45, 0.70, 0.90) as
 * dashed verticals, and the pairs per bin (log scale) underneath so a sparse bin reads as one.
 */
import type { ReliabilityBin } from './metrics.ts';
import { wilson } from './metrics.ts';
import { Raster, type Rgb } from './png.ts';

export interface Series {
  label: string;
  color: Rgb;
  bins: readonly ReliabilityBin[];
}

const INK: Rgb = [30, 30, 30];
const GRID: Rgb = [225, 225, 225];
const FAINT: Rgb = [150, 150, 150];

export function drawReliabilityDiagram(title: string, series: readonly Series[]): Buffer {
  const canvas = new Raster(1040, 960);
  const left = 110;
  const top = 90;
  const size = 600;
  const histTop = top + size + 110;
  const histHeight = 110;
  const px = (p: number): number => left + p * size;
  const py = (p: number): number => top + (1 - p) * size;

  canvas.text(left, 24, title, INK, 3);
  canvas.text(left - 60, top - 36, 'OBSERVED POSITIVE RATE', INK, 2);
  canvas.text(left + size / 2 - Raster.textWidth('MEAN PREDICTED PROBABILITY') / 2, top + size + 42, 'MEAN PREDICTED PROBABILITY', INK, 2);

  for (let i = 0; i <= 10; i += 1) {
    const v = i / 10;
    canvas.line(px(v), py(0), px(v), py(1), GRID);
    canvas.line(px(0), py(v), px(1), py(v), GRID);
    const label = v.toFixed(1);
    canvas.text(px(v) - Raster.textWidth(label) / 2, top + size + 10, label, INK, 2);
    canvas.text(left - Raster.textWidth(label) - 10, py(v) - 7, label, INK, 2);
  }
  for (const [floor, name] of [
    [0.45, 'POSSIBLE'],
    [0.7, 'PROBABLE'],
    [0.9, 'CONFIRMED'],
  ] as const) {
    canvas.line(px(floor), py(0), px(floor), py(1), FAINT, 1, 6);
    canvas.text(px(floor) + 4, py(0) - 16 - (name === 'PROBABLE' ? 14 : 0), name, FAINT, 1);
  }
  canvas.line(px(0), py(0), px(1), py(1), FAINT, 2, 8);
  canvas.line(px(0), py(0), px(1), py(0), INK, 2);
  canvas.line(px(0), py(0), px(0), py(1), INK, 2);

  series.forEach((s, index) => {
    const shift = (index - (series.length - 1) / 2) * 5;
    const points = s.bins.filter((b) => b.count > 0);
    points.forEach((b, i) => {
      const ci = wilson(b.positives, b.count);
      canvas.line(px(b.meanProbability) + shift, py(ci.low), px(b.meanProbability) + shift, py(ci.high), s.color, 2);
      const next = points[i + 1];
      if (next !== undefined)
        canvas.line(px(b.meanProbability), py(b.observedRate), px(next.meanProbability), py(next.observedRate), s.color, 2);
    });
    for (const b of points)
      canvas.disc(px(b.meanProbability) + shift, py(b.observedRate), 3 + Math.round(Math.log10(b.count + 1) * 2), s.color);

    const legendY = top + 20 + index * 30;
    canvas.disc(left + size + 40, legendY + 7, 7, s.color);
    canvas.text(left + size + 56, legendY, s.label, INK, 2);
  });
  canvas.text(left + size + 30, top + 20 + series.length * 30 + 10, 'BARS: 95 PCT WILSON', FAINT, 1);
  canvas.text(left + size + 30, top + 20 + series.length * 30 + 24, 'DASHED: PERFECT CALIBRATION', FAINT, 1);

  canvas.text(left - 60, histTop - 22, 'PAIRS PER BIN (LOG SCALE)', INK, 2);
  canvas.line(px(0), histTop + histHeight, px(1), histTop + histHeight, INK, 2);
  for (let i = 0; i <= 10; i += 2)
    canvas.text(px(i / 10) - Raster.textWidth('0.0', 1) / 2, histTop + histHeight + 6, (i / 10).toFixed(1), INK, 1);
  const maxLog = Math.log10(Math.max(10, ...series.flatMap((s) => s.bins.map((b) => b.count))) + 1);
  const barWidth = Math.floor(size / 10 / (series.length + 1));
  series.forEach((s, index) => {
    s.bins.forEach((b, i) => {
      const h = Math.round((Math.log10(b.count + 1) / maxLog) * histHeight);
      canvas.fillRect(px(i / 10) + 4 + index * barWidth, histTop + histHeight - h, barWidth - 2, h, s.color);
    });
  });
  return canvas.toPng();
}
