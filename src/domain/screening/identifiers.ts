/**
 * Indian statutory identifiers a litigation check can be anchored on: PAN (income tax),
 * GSTIN (goods and services tax registration, which embeds the holder's PAN), CIN (company)
 * and LLPIN (limited liability partnership). The request is format-validated with these
 * (a malformed identifier is a 400), and record text is scanned with them so an exact
 * identifier in a case decides the match (rule 4) and a different one of the same kind is a
 * conflict. Formats follow the issuing authorities' published layouts; PAN's tenth character
 * is a check letter whose algorithm is not published, so PAN is format-checked only. Pure.
 */

export type IdentifierKind = 'pan' | 'gstin' | 'cin' | 'llpin';

export type IdentifierError = 'length' | 'format' | 'holder_type' | 'state_code' | 'company_type' | 'checksum';

export type IdentifierCheck = { valid: true; value: string } | { valid: false; error: IdentifierError };

/** PAN's fourth character: who holds it (CBDT's published holder types). */
export const PAN_HOLDER_TYPES: Readonly<Record<string, string>> = {
  P: 'individual',
  C: 'company',
  H: 'Hindu undivided family',
  F: 'firm',
  A: 'association of persons',
  T: 'trust',
  B: 'body of individuals',
  L: 'local authority',
  J: 'artificial juridical person',
  G: 'government',
};

/** CIN's last-but-one block: the company's class (public, private, foreign, government, ...). */
export const CIN_COMPANY_TYPES: ReadonlySet<string> = new Set([
  'PLC', // public limited
  'PTC', // private limited
  'FTC', // subsidiary of a foreign company
  'FLC', // public subsidiary of a foreign company
  'GOI', // Government of India company
  'SGC', // state government company
  'GAP', // guarantee and association, public
  'GAT', // guarantee and association, private
  'NPL', // not for profit (section 8)
  'ULL', // unlimited, public
  'ULT', // unlimited, private
  'OPC', // one person company
]);

/** Registrar-of-companies state codes written in CINs, including older and newer spellings. */
export const CIN_STATE_CODES: ReadonlySet<string> = new Set(
  'AN AP AR AS BR CG CH CT DD DL DN GA GJ HP HR JH JK KA KL LA LD MH ML MN MP MZ NL OD OR PB PY RJ SK TG TN TR TS UK UP UR UT WB'.split(
    ' ',
  ),
);

const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

const PAN_SHAPE = /^[A-Z]{5}[0-9]{4}[A-Z]$/;
const GSTIN_SHAPE = /^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/;
const CIN_SHAPE = /^[LU][0-9]{5}[A-Z]{2}[0-9]{4}[A-Z]{3}[0-9]{6}$/;
const LLPIN_SHAPE = /^[A-Z]{3}-[0-9]{4}$/;

const ok = (value: string): IdentifierCheck => ({ valid: true, value });
const bad = (error: IdentifierError): IdentifierCheck => ({ valid: false, error });

function canonical(value: string): string {
  return value.trim().toUpperCase();
}

export function validatePan(input: string): IdentifierCheck {
  const v = canonical(input);
  if (v.length !== 10) return bad('length');
  if (!PAN_SHAPE.test(v)) return bad('format');
  return v.charAt(3) in PAN_HOLDER_TYPES ? ok(v) : bad('holder_type');
}

/**
 * GSTIN check character: a Luhn mod 36 over the first fourteen characters, weights 1 and 2
 * alternating from the left, each product folded as quotient plus remainder by 36.
 */
export function gstinCheckCharacter(first14: string): string {
  let sum = 0;
  for (let i = 0; i < first14.length; i++) {
    const product = BASE36.indexOf(first14.charAt(i)) * (i % 2 === 0 ? 1 : 2);
    sum += Math.floor(product / 36) + (product % 36);
  }
  return BASE36.charAt((36 - (sum % 36)) % 36);
}

/** 01 to 38 are states and union territories, 97 other territory, 99 centre jurisdiction. */
function isGstStateCode(code: string): boolean {
  const n = Number(code);
  return (n >= 1 && n <= 38) || n === 97 || n === 99;
}

export function validateGstin(input: string): IdentifierCheck {
  const v = canonical(input);
  if (v.length !== 15) return bad('length');
  if (!GSTIN_SHAPE.test(v)) return bad('format');
  if (!isGstStateCode(v.slice(0, 2))) return bad('state_code');
  const pan = validatePan(v.slice(2, 12));
  if (!pan.valid) return pan;
  return gstinCheckCharacter(v.slice(0, 14)) === v.charAt(14) ? ok(v) : bad('checksum');
}

export function validateCin(input: string): IdentifierCheck {
  const v = canonical(input);
  if (v.length !== 21) return bad('length');
  if (!CIN_SHAPE.test(v)) return bad('format');
  if (!CIN_STATE_CODES.has(v.slice(6, 8))) return bad('state_code');
  return CIN_COMPANY_TYPES.has(v.slice(12, 15)) ? ok(v) : bad('company_type');
}

export function validateLlpin(input: string): IdentifierCheck {
  const v = canonical(input);
  if (v.length !== 8) return bad('length');
  return LLPIN_SHAPE.test(v) ? ok(v) : bad('format');
}

const VALIDATORS: Readonly<Record<IdentifierKind, (input: string) => IdentifierCheck>> = {
  pan: validatePan,
  gstin: validateGstin,
  cin: validateCin,
  llpin: validateLlpin,
};

export function validateIdentifier(kind: IdentifierKind, input: string): IdentifierCheck {
  return VALIDATORS[kind](input);
}

/** The PAN inside a GSTIN: the same legal entity, whatever state it registered in. */
export function panOfGstin(gstin: string): string {
  return gstin.slice(2, 12);
}

export interface FoundIdentifier {
  kind: IdentifierKind;
  value: string;
  start: number;
  end: number;
}

/**
 * Identifiers written in free text, case-insensitively (some judgment texts are lower-cased).
 * A candidate only counts if it passes its validator, so a GSTIN needs its check character.
 * LLPIN's shape ("AAB-9032") is also the shape of many file and case references, so in free
 * text it counts only when labelled "LLPIN" or "LLP identification number" just before it.
 * The label is matched, not looked behind for (a lookbehind with an open-ended `\s*` defeats
 * the ReDoS check), and the identifier is the `id` group, located by the `d` flag.
 */
const SCANNERS: readonly (readonly [IdentifierKind, RegExp])[] = [
  ['gstin', /(?<![A-Z0-9])(?<id>[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][0-9A-Z]Z[0-9A-Z])(?![A-Z0-9])/dgi],
  ['pan', /(?<![A-Z0-9])(?<id>[A-Z]{5}[0-9]{4}[A-Z])(?![A-Z0-9])/dgi],
  ['cin', /(?<![A-Z0-9])(?<id>[LU][0-9]{5}[A-Z]{2}[0-9]{4}[A-Z]{3}[0-9]{6})(?![A-Z0-9])/dgi],
  ['llpin', /\bLLP\s*(?:IN|IDENTIFICATION\s+NUMBER|ID)\b[\s.:\-–No]{0,8}(?<id>[A-Z]{3}-[0-9]{4})(?![A-Z0-9])/dgi],
];

export function findIdentifiers(text: string): FoundIdentifier[] {
  const found: FoundIdentifier[] = [];
  for (const [kind, pattern] of SCANNERS)
    for (const m of text.matchAll(pattern)) {
      const [start, end] = m.indices!.groups!.id!;
      const check = validateIdentifier(kind, text.slice(start, end));
      if (check.valid) found.push({ kind, value: check.value, start, end });
    }
  return found.sort((a, b) => a.start - b.start);
}

export type SuppliedIdentifiers = Partial<Record<IdentifierKind, string>>;

/** Which legal entity an identifier names: PAN for PAN and GSTIN, else itself. */
type EntityKey = 'pan' | 'cin' | 'llpin';

function entityKey(kind: IdentifierKind, value: string): readonly [EntityKey, string] {
  if (kind === 'gstin') return ['pan', panOfGstin(value)];
  return [kind, value];
}

export interface IdentifierComparison {
  /** Identifiers in the record naming the same legal entity as one the caller supplied. */
  matched: FoundIdentifier[];
  /** Identifiers in the record of a kind the caller supplied, none of which is the caller's. */
  conflicting: FoundIdentifier[];
}

/**
 * Compares by legal entity: the caller's PAN is matched by a GSTIN that embeds it (and the
 * other way round), because both name the same taxpayer. A kind counts as conflicting only
 * when the record carries that kind and none of it is the caller's.
 */
export function compareIdentifiers(supplied: SuppliedIdentifiers, found: readonly FoundIdentifier[]): IdentifierComparison {
  const wanted = new Map<EntityKey, Set<string>>();
  for (const [kind, value] of Object.entries(supplied) as [IdentifierKind, string | undefined][]) {
    if (value === undefined) continue;
    const check = validateIdentifier(kind, value);
    if (!check.valid) continue;
    const [key, id] = entityKey(kind, check.value);
    wanted.set(key, (wanted.get(key) ?? new Set()).add(id));
  }
  const byKey = new Map<EntityKey, FoundIdentifier[]>();
  for (const f of found) {
    const [key] = entityKey(f.kind, f.value);
    byKey.set(key, [...(byKey.get(key) ?? []), f]);
  }
  const matched: FoundIdentifier[] = [];
  const conflicting: FoundIdentifier[] = [];
  for (const [key, ids] of wanted) {
    const inRecord = byKey.get(key) ?? [];
    const same = inRecord.filter((f) => ids.has(entityKey(f.kind, f.value)[1]));
    if (same.length > 0) matched.push(...same);
    else conflicting.push(...inRecord);
  }
  return { matched, conflicting };
}
