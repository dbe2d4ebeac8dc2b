/** Small statistics helpers for benchmarks: medians over repeated runs, printed as a table. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function repeat(runs: number, run: (i: number) => Promise<number>): Promise<number[]> {
  const results: number[] = [];
  for (let i = 0; i < runs; i += 1) results.push(await run(i));
  return results;
}

export function table(rows: readonly (readonly (string | number)[])[]): string {
  const text = rows.map((r) => r.map((c) => (typeof c === 'number' ? c.toFixed(c >= 100 ? 0 : 2) : c)));
  const widths = text[0]!.map((_, i) => Math.max(...text.map((r) => r[i]!.length)));
  return text.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}
