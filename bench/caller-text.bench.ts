/**
 * How long one call of each caller-text parser holds the event loop on the worst text the
 * API lets reach it: every head × filler × tail shape of test/support/caller-text-parsers.ts
 * (the alphabet that makes backtracking patterns blow up) at the parser's longest accepted
 * length, each timed as the median of three calls. Printed per parser: the worst of those
 * medians, the shape that gave it, and the median over all shapes. Before the rewrite the
 * reported 913-character query held the loop for 5 to 9 s in the CNR patterns.
 */
import { adversarialTexts, CALLER_TEXT_PARSERS } from '../test/support/caller-text-parsers.ts';
import { median, table } from './stats.ts';

const RUNS = 3;

function callMs(parse: (text: string) => unknown, text: string): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    parse(text);
    times.push(performance.now() - start);
  }
  return median(times);
}

export function callerTextBench(): void {
  const rows: (string | number)[][] = [['parser', 'max chars', 'inputs', 'worst ms', 'median ms', 'worst input (head, filler, tail)']];
  for (const { label, maxLength, parse } of CALLER_TEXT_PARSERS) {
    const times: number[] = [];
    let worst = { ms: -1, shape: '' };
    for (const { shape, text } of adversarialTexts(maxLength)) {
      const ms = callMs(parse, text);
      times.push(ms);
      if (ms > worst.ms) worst = { ms, shape };
    }
    rows.push([label, String(maxLength), String(times.length), worst.ms, median(times), worst.shape]);
  }
  console.log(
    '\nEvent-loop hold of one caller-text parse on adversarial text at the longest accepted length (median of 3 calls per input)',
  );
  console.log(table(rows));
}
