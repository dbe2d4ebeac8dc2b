/**
 * The model designs weighed against each other, refitted on the fit part whenever the report
 * runs so the choice is re-checked rather than remembered: the isotonic map (also what
 * fit.ts commits for the entity types that use one), a richer logistic with piecewise-linear
 * terms in name similarity and an exact-match × name-length interaction, and a
 * result-level namesake count the features do not have yet.
 */
import { modelInputs } from '../../src/domain/screening/calibration.ts';
import type { MatchFeatures } from '../../src/domain/screening/features.ts';

/** Blocks smaller than this are merged into a neighbour: a map point should rest on more than a handful of pairs. */
const MIN_BLOCK = 25;

/**
 * Isotonic map from the fit part's (logistic probability, label) points: pool-adjacent-
 * violators (equal scores pooled first), small blocks merged, each block's rate shrunk by
 * half a pair towards ½ so no step claims exactly 0 or 1. The map is a step function: each
 * step starts halfway between the highest score of one block and the lowest of the next,
 * so every fitted score lands on its own block's rate.
 */
export function fitIsotonicMap(points: readonly { x: number; y: number }[]): [number, number][] {
  const sorted = [...points].sort((a, b) => a.x - b.x);
  const blocks: { lo: number; hi: number; sumY: number; n: number }[] = [];
  const rate = (b: { sumY: number; n: number }): number => b.sumY / b.n;
  const absorb = (into: (typeof blocks)[number], from: (typeof blocks)[number]): void => {
    into.lo = Math.min(into.lo, from.lo);
    into.hi = Math.max(into.hi, from.hi);
    into.sumY += from.sumY;
    into.n += from.n;
  };
  for (const { x, y } of sorted) {
    // Equal scores (identical feature vectors) must share one value: pool them before anything else.
    const last = blocks[blocks.length - 1];
    if (last !== undefined && last.hi === x) {
      last.sumY += y;
      last.n += 1;
    } else blocks.push({ lo: x, hi: x, sumY: y, n: 1 });
    while (blocks.length > 1 && rate(blocks[blocks.length - 2]!) >= rate(blocks[blocks.length - 1]!)) {
      absorb(blocks[blocks.length - 2]!, blocks.pop()!);
    }
  }
  for (let i = 0; i < blocks.length;) {
    if (blocks[i]!.n >= MIN_BLOCK || blocks.length === 1) {
      i += 1;
      continue;
    }
    const j = i === blocks.length - 1 ? i - 1 : i + 1;
    absorb(blocks[j]!, blocks[i]!);
    blocks.splice(i, 1);
    if (j < i) i -= 1;
  }
  const map: [number, number][] = [];
  let floor = 0;
  blocks.forEach((b, i) => {
    const y = Math.max(floor, Math.round(((b.sumY + 0.5) / (b.n + 1)) * 1e4) / 1e4);
    floor = y;
    const before = blocks[i - 1];
    let from = before === undefined ? 0 : Math.round(((before.hi + b.lo) / 2) * 1e6) / 1e6;
    if (before !== undefined && (from <= before.hi || from > b.lo)) from = b.lo;
    if (map.length > 0 && map[map.length - 1]![1] === y) return;
    map.push([from, y]);
  });
  return map;
}

const hinge = (x: number, knot: number): number => Math.max(0, x - knot);

/** The committed inputs plus similarity hinges at 0.75/0.85/0.95 and exact × length. */
export function richerInputs(features: MatchFeatures): number[] {
  const s = features.nameSimilarity;
  return [
    ...modelInputs(features),
    hinge(s, 0.75),
    hinge(s, 0.85),
    hinge(s, 0.95),
    features.exactNormalised ? Math.min(features.queryTokenCount, 6) / 6 : 0,
  ];
}

/**
 * For each pair, how many other candidates of the same screening match the screened name
 * at least about as well (similarity within 0.02): a result-level count the feature
 * extractor cannot see from one candidate, measured here to show what it would add.
 */
export function namesakesInResult(items: readonly { pair: { seedCaseId: string; query: unknown }; features: MatchFeatures }[]): number[] {
  const byQuery = new Map<string, number[]>();
  items.forEach((item, i) => {
    const key = `${item.pair.seedCaseId}|${JSON.stringify(item.pair.query)}`;
    const list = byQuery.get(key);
    if (list === undefined) byQuery.set(key, [i]);
    else list.push(i);
  });
  return items.map((item) => {
    const group = byQuery.get(`${item.pair.seedCaseId}|${JSON.stringify(item.pair.query)}`) ?? [];
    return group.filter((j) => items[j] !== item && items[j]!.features.nameSimilarity >= item.features.nameSimilarity - 0.02).length;
  });
}
