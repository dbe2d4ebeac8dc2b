/**
 * Reads samples out of a Prometheus text exposition, as a scraper would: by metric name
 * and an exact label set. Tests compare values before and after a call, so they check
 * what moved, not what a fresh registry happens to hold.
 */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The value of `name` with exactly `labels`, or 0 when the exposition has no such sample (a counter not yet moved). */
export function sampleValue(exposition: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  for (const line of exposition.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || match[1] !== name) continue;
    const found = [...(match[2] ?? '').matchAll(LABEL)].map((m) => [m[1]!, m[2]!] as const).sort(([a], [b]) => a.localeCompare(b));
    if (JSON.stringify(found) === JSON.stringify(wanted)) return Number(match[3]);
  }
  return 0;
}

/** Whether the exposition has any sample of `name` (with `labels` among its labels). */
export function hasSample(exposition: string, name: string, labels: Record<string, string> = {}): boolean {
  return exposition
    .split('\n')
    .some((line) => SAMPLE.exec(line)?.[1] === name && Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)));
}
