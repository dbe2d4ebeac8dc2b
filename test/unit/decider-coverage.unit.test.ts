/**
 * Every decider has a given/when/then test. The deciders are read from the sources at test
 * time (each exported `decide*` function in src/domain), so a new one without a test that
 * runs it through test/support/decider-spec.ts fails here instead of going unnoticed.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string, suffix: string): { path: string; text: string }[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(suffix))
    .map((name) => ({ path: join(dir, name), text: readFileSync(join(ROOT, dir, name), 'utf8') }));
}

/** `export function decideX(` and `export const decideX =`, wherever they sit in src/domain. */
const DECIDER_EXPORT = /^export\s+(?:function\s+|const\s+)(decide[A-Z]\w*)/gm;

const deciders = sources('src/domain', '.ts').flatMap(({ path, text }) =>
  [...text.matchAll(DECIDER_EXPORT)].map((match) => ({ name: match[1] ?? '', path })),
);

/** Test files that go through the helper: `spec({ decide: decideX, ... })` or `rule(decideX)`. */
const specFiles = sources('test/unit', '.unit.test.ts').filter(({ text }) => text.includes("from '../support/decider-spec.ts'"));

function specifiedIn(name: string): string[] {
  const use = new RegExp(`(?:decide:\\s*${name}\\b|rule\\(\\s*${name}\\s*\\))`);
  return specFiles.filter(({ text }) => use.test(text)).map(({ path }) => path);
}

describe('decider test coverage', () => {
  it('finds the deciders in src/domain', () => {
    assert.ok(deciders.length >= 12, `only ${String(deciders.length)} deciders found: is the pattern still right?`);
  });

  it('has a given/when/then unit test for every exported decider', () => {
    const untested = deciders.filter(({ name }) => specifiedIn(name).length === 0).map(({ name, path }) => `${name} (${path})`);
    assert.deepEqual(untested, [], `deciders without a test using test/support/decider-spec.ts:\n${untested.join('\n')}`);
  });
});
