/**
 * Identifier validation against every public test vector in
 * ../shared/data/identifier-test-vectors (read at test time), the GSTIN check character
 * recomputed for the valid ones, and identifiers found in text and compared by legal entity.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  compareIdentifiers,
  findIdentifiers,
  gstinCheckCharacter,
  type IdentifierKind,
  panOfGstin,
  validateIdentifier,
} from '../../src/domain/screening/identifiers.ts';
import { corpusDir } from '../support/corpus.ts';

interface Vector {
  type: string;
  value: string;
  expected_valid: boolean;
  expected_error?: string;
}

const vectors = JSON.parse(readFileSync(join(corpusDir, 'identifier-test-vectors', 'identifiers.json'), 'utf8')) as Vector[];
const KINDS: readonly IdentifierKind[] = ['pan', 'gstin', 'cin', 'llpin'];
const ours = vectors.filter((v) => (KINDS as readonly string[]).includes(v.type.toLowerCase()));
const kindOf = (v: Vector): IdentifierKind => v.type.toLowerCase() as IdentifierKind;

/** The vectors name their errors in words; ours are codes. */
function expectedCode(error: string): string {
  if (error.includes('holder type')) return 'holder_type';
  return error;
}

describe('identifier test vectors', () => {
  it('covers every statutory kind in the file', () => {
    assert.deepEqual([...new Set(ours.map(kindOf))].sort(), [...KINDS].sort());
    assert.ok(ours.length >= 15, `${String(ours.length)} vectors`);
  });

  for (const v of ours)
    it(`${v.type} ${v.value} is ${v.expected_valid ? 'valid' : `invalid (${v.expected_error ?? ''})`}`, () => {
      const check = validateIdentifier(kindOf(v), v.value);
      assert.equal(check.valid, v.expected_valid);
      if (!check.valid && v.expected_error !== undefined) assert.equal(check.error, expectedCode(v.expected_error));
      if (check.valid) assert.equal(check.value, v.value.toUpperCase());
    });

  it('recomputes the check character of every valid GSTIN and rejects every other character there', () => {
    for (const v of ours.filter((x) => x.type === 'GSTIN' && x.expected_valid)) {
      assert.equal(gstinCheckCharacter(v.value.slice(0, 14)), v.value.charAt(14));
      for (const c of '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ') {
        if (c === v.value.charAt(14)) continue;
        assert.deepEqual(validateIdentifier('gstin', v.value.slice(0, 14) + c), { valid: false, error: 'checksum' });
      }
    }
  });

  it('accepts lower case and surrounding spaces, returning the canonical form', () => {
    const pan = ours.find((v) => v.type === 'PAN' && v.expected_valid);
    assert.ok(pan);
    assert.deepEqual(validateIdentifier('pan', ` ${pan.value.toLowerCase()} `), { valid: true, value: pan.value });
  });
});

describe('format rules beyond the vectors', () => {
  it('rejects a GSTIN state code outside 01-38, 97, 99', () => {
    const gstin = ours.find((v) => v.type === 'GSTIN' && v.expected_valid)?.value ?? '';
    const rest = gstin.slice(2, 14);
    assert.equal(validateIdentifier('gstin', `00${rest}${gstinCheckCharacter(`00${rest}`)}`).valid, false);
    assert.equal(validateIdentifier('gstin', `45${rest}${gstinCheckCharacter(`45${rest}`)}`).valid, false);
    assert.equal(validateIdentifier('gstin', `99${rest}${gstinCheckCharacter(`99${rest}`)}`).valid, true);
  });

  it('rejects a CIN with an unknown company class or a malformed LLPIN', () => {
    const cin = ours.find((v) => v.type === 'CIN' && v.expected_valid)?.value ?? '';
    assert.deepEqual(validateIdentifier('cin', `${cin.slice(0, 12)}XYZ${cin.slice(15)}`), { valid: false, error: 'company_type' });
    assert.deepEqual(validateIdentifier('cin', `X${cin.slice(1)}`), { valid: false, error: 'format' });
    assert.deepEqual(validateIdentifier('llpin', 'AAB9032'), { valid: false, error: 'length' });
    assert.deepEqual(validateIdentifier('llpin', 'AA1-9032'), { valid: false, error: 'format' });
  });
});

describe('findIdentifiers and compareIdentifiers', () => {
  const gstin = ours.find((v) => v.type === 'GSTIN' && v.expected_valid)?.value ?? '';
  const badGstin = ours.find((v) => v.type === 'GSTIN' && v.expected_error === 'checksum')?.value ?? '';
  const cins = ours.filter((v) => v.type === 'CIN' && v.expected_valid).map((v) => v.value);
  const llpin = ours.find((v) => v.type === 'LLPIN')?.value ?? '';

  it('finds valid identifiers with their offsets, in lower-cased text too, and skips a failed checksum', () => {
    const text = `gstin ${gstin.toLowerCase()}; wrong ${badGstin}; cin ${cins[0] ?? ''}, llpin: ${llpin}, file ABC-1234`;
    const found = findIdentifiers(text);
    assert.deepEqual(
      found.map((f) => [f.kind, f.value]),
      [
        ['gstin', gstin],
        ['cin', cins[0]],
        ['llpin', llpin],
      ],
    );
    for (const f of found) assert.equal(text.slice(f.start, f.end).toUpperCase(), f.value);
  });

  it('matches a PAN through the GSTIN that embeds it, and a GSTIN through its PAN', () => {
    const found = findIdentifiers(`registered as ${gstin}`);
    assert.equal(compareIdentifiers({ pan: panOfGstin(gstin) }, found).matched.length, 1);
    const byPan = findIdentifiers(`PAN ${panOfGstin(gstin)}`);
    assert.equal(compareIdentifiers({ gstin }, byPan).matched.length, 1);
  });

  it('calls a different identifier of a supplied kind a conflict, and ignores kinds not supplied', () => {
    const [mine, other] = cins;
    assert.ok(mine !== undefined && other !== undefined);
    const found = findIdentifiers(`CIN ${other} and GSTIN ${gstin}`);
    const result = compareIdentifiers({ cin: mine }, found);
    assert.deepEqual(
      result.conflicting.map((f) => f.value),
      [other],
    );
    assert.equal(result.matched.length, 0);
    assert.deepEqual(compareIdentifiers({ cin: other }, found).conflicting, []);
  });
});
