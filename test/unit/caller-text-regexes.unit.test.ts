/**
 * Every regular expression a caller-text parser runs is ReDoS-safe by recheck, a sound
 * checker (automata analysis, falling back to fuzzing where lookaround rules that out).
 * The lint rules see the patterns written in the source; this also sees those built at run time (the
 * legal-abbreviation rewrites, the API-key shape). The patterns are collected by recording
 * `RegExp.prototype.exec`, which `test`, `match`, `matchAll`, `replace`, `split` and
 * `search` all call once it is replaced, while each parser reads its printed forms and
 * some adversarial text; so a pattern added to a parser is checked without being listed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { check } from 'recheck';
import { adversarialText, CALLER_TEXT_PARSERS } from '../support/caller-text-parsers.ts';

/**
 * recheck's limits counted in steps only: the fuzzing checker's time limits would make a
 * verdict depend on how busy the machine is. A whole check may still take up to a minute.
 */
const DETERMINISTIC = { timeout: 60_000, incubationTimeout: null, attackTimeout: null, seedingTimeout: null };

/** The distinct patterns (source and flags; a split's sticky copy counts as its own) run by `work`. */
async function patternsRunBy(work: () => Promise<void>): Promise<Map<string, RegExp>> {
  const seen = new Map<string, RegExp>();
  const exec = RegExp.prototype.exec;
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    seen.set(`/${this.source}/${this.flags}`, this);
    return exec.call(this, text);
  };
  try {
    await work();
  } finally {
    RegExp.prototype.exec = exec;
  }
  return seen;
}

describe('the patterns caller-text parsers run', () => {
  let patterns = new Map<string, RegExp>();

  before(async () => {
    patterns = await patternsRunBy(async () => {
      for (const { parse, samples, maxLength } of CALLER_TEXT_PARSERS) {
        const texts = [...samples, adversarialText('ABCD', ' ', 'X', Math.min(maxLength, 300)), adversarialText('1', '1 ', '', 50)];
        for (const text of texts) await parse(text);
      }
    });
  });

  after(() => patterns.clear());

  it('are collected from every parser', () => {
    // The case-number parser alone runs some thirty; far fewer means the recorder saw nothing.
    assert.ok(patterns.size > 60, `only ${String(patterns.size)} patterns recorded`);
  });

  it('are each ReDoS-safe', async () => {
    const verdicts = await Promise.all(
      [...patterns.values()].map(async (pattern) => {
        // The `d` flag only adds match indices, and recheck does not know it.
        const diagnostics = await check(pattern.source, pattern.flags.replace('d', ''), DETERMINISTIC);
        return { pattern: `/${pattern.source}/${pattern.flags}`, diagnostics };
      }),
    );
    const unsafe = verdicts
      .filter((v) => v.diagnostics.status !== 'safe')
      .map(({ pattern, diagnostics: d }) =>
        d.status === 'vulnerable'
          ? `${pattern}: ${d.complexity.type}, attack ${JSON.stringify(d.attack.pattern)}`
          : `${pattern}: ${d.status}`,
      );
    assert.deepEqual(unsafe, []);
  });
});
