/**
 * Every parser that reads caller text, with the longest text the API lets reach it, the
 * printed forms it is built for, and the adversarial text that makes a backtracking
 * pattern blow up. One table serves the timing properties, the ReDoS check of the patterns
 * the parsers run, and the event-loop benchmark, so a parser added here is covered by all
 * three.
 */
import fc from 'fast-check';
import { HmacApiKeyCodec } from '../../src/adapters/crypto/api-key-codec.ts';
import { judgeKey } from '../../src/application/judges/judge-directory.ts';
import { FILTER_LIMITS, resolveFilters } from '../../src/application/search/search-filters.ts';
import { resolveSemanticFilters } from '../../src/application/search/semantic-filters.ts';
import { parseAddress } from '../../src/domain/access/cidr.ts';
import { normaliseCaseNumber, normaliseCnr } from '../../src/domain/case/case-number.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../src/domain/idempotency/idempotency.ts';
import { placesOf } from '../../src/domain/screening/address.ts';
import type { EntityType } from '../../src/domain/screening/features.ts';
import { findIdentifiers, validateIdentifier, type IdentifierKind } from '../../src/domain/screening/identifiers.ts';
import { parseScreenedName } from '../../src/domain/screening/names.ts';
import { parseParty } from '../../src/domain/screening/party-parse.ts';
import { prepareQuery } from '../../src/domain/screening/prepared-query.ts';
import { MAX_ALIASES, MAX_KNOWN_PERSONS } from '../../src/domain/screening/screening-request.ts';
import { normalisePartyName } from '../../src/domain/search/party-name.ts';
import { analyseQuery } from '../../src/domain/search/query.ts';
import { normaliseCnr as normalisePortalCnr } from '../../src/domain/timeline/cnr.ts';

/** The caps the API applies before these parsers run (zod `.max()` in src/http/routes, the body limit). */
export const CAP = {
  /** POST /search/cases `query`. */
  keywordQuery: 1000,
  /** POST /search/cases/semantic `query` (its keyword fallback reads the same text). */
  semanticQuery: 2000,
  /** GET /cases/:id and POST /timeline `caseId`. */
  caseId: 300,
  /** Party names, aliases and known persons. */
  name: 200,
  /** Address city and state. */
  place: 100,
  /** PAN, GSTIN, CIN, LLPIN. */
  identifier: 40,
  /** GET /judges/search `q`. */
  judgeQuery: 200,
  /** Search filter values, each (court, caseType, judgeName, year, caseNumber). */
  filter: FILTER_LIMITS,
  /** POST /request-timeline `cnr`. */
  cnr: 30,
  /** Header values (Idempotency-Key, X-API-Key, X-Forwarded-For): Node's 16 KiB header limit. */
  header: 16 * 1024,
} as const;

const CURRENT_YEAR = 2026;
const IDENTIFIER_KINDS: readonly IdentifierKind[] = ['pan', 'gstin', 'cin', 'llpin'];
const apiKeys = new HmacApiKeyCodec(['crk_live', 'crk_test'], 'a-secret-of-some-length');

export interface CallerTextParser {
  readonly label: string;
  /** The longest text the API passes it. */
  readonly maxLength: number;
  readonly parse: (text: string) => unknown;
  /** Printed forms it is built for: every branch, so every pattern it holds runs. */
  readonly samples: readonly string[];
}

const CASE_NUMBERS = [
  'C.A. No.-000101-000101 - 1959',
  'Civil Appeal No. 101 of 1959',
  'criminal appeal nos. 1156-1157 of 2001',
  'SLP (Crl.) No. 2856 of 1979',
  'W.P.(C) 5678/2019',
  'MA-001529 - 2018',
  'GAHC01-022550-2018',
  'GAHC 01 022550 2018',
  'civil appeals nos. 180 to 183 of 1966',
  'Diary No. 41376/2024',
];
const QUERIES = [
  'Civil Appeal No. 1918 of 2015 land',
  'bail in CA 1918/2015',
  'WP(C)/5678/2019',
  'GAHC01-022550-2018 hearing',
  'U.O.I. & ORS. v. M/s. Hydro (Engineers) Pvt. Ltd.',
  'State of U.P. compensation decided in 2019 Delhi High Court special leave petition (civil)',
  '"land acquisition" -compensation',
];
const NAMES = [
  'M/s. Hydro (Engineers) Pvt. Ltd.',
  'Shri Ramesh Kumar S/o Suresh Kumar',
  'National Insurance Co. Ltd., Chandigarh & Ors.',
  'Smt. Kamala Devi W/o Late Bharati Prasad and 2 Ors.',
  'Union of India',
  'Lakshmi Choudhury',
];
/** `text` with every letter moved `by` places along the alphabet and every digit along the digits: the same shape, other words. */
function shifted(text: string, by: number): string {
  return text.replace(/[A-Za-z0-9]/g, (ch) => {
    const code = ch.charCodeAt(0);
    const [base, size] = ch <= '9' ? [48, 10] : ch <= 'Z' ? [65, 26] : [97, 26];
    return String.fromCharCode(base + ((code - base + by) % size));
  });
}

/**
 * A litigation check at its caps built from one text: the name and every alias, and every
 * known person, at the longest accepted length and each written with other letters, so no
 * known person is taken for the screened name and every one is compared with every name.
 */
function screeningAtCaps(text: string, entityType: EntityType): unknown {
  return prepareQuery({
    name: text,
    aliases: Array.from({ length: MAX_ALIASES }, (_, i) => shifted(text, i + 1)),
    entityType,
    identifiers: {},
    knownPersons: Array.from({ length: MAX_KNOWN_PERSONS }, (_, i) => shifted(text, MAX_ALIASES + i + 1)),
  });
}

const FILTER_SAMPLES = [
  'Delhi High Court, Bombay High Court',
  'Writ Petition (Civil)',
  'wp(c)',
  '2019',
  'Lucknow Bench of Allahabad High Court',
];

/** As many copies of `value` as the filter takes values. */
function atMost(filter: keyof typeof FILTER_LIMITS, value: string): string[] {
  return Array.from({ length: FILTER_LIMITS[filter].values }, () => value);
}

const IDENTIFIERS = ['AABCB5576G', '27AAPFU0939F1ZV', 'L17110MH1973PLC019786', 'AAB-9032', 'aabcb5576g '];

export const CALLER_TEXT_PARSERS: readonly CallerTextParser[] = [
  { label: 'normaliseCaseNumber (GET /cases/:id)', maxLength: CAP.caseId, parse: normaliseCaseNumber, samples: CASE_NUMBERS },
  {
    label: 'normaliseCaseNumber (semantic caseNumber filter)',
    maxLength: CAP.filter.caseNumber.length,
    parse: normaliseCaseNumber,
    samples: CASE_NUMBERS,
  },
  {
    label: 'normaliseCnr (in a query)',
    maxLength: CAP.semanticQuery,
    parse: normaliseCnr,
    samples: ['GAHC010225502018', 'gahc01-022550-2018'],
  },
  {
    label: 'timeline normaliseCnr (POST /timeline cnr)',
    maxLength: CAP.cnr,
    parse: normalisePortalCnr,
    samples: ['GAHC040007922024', 'GAHC04-000792-2024'],
  },
  { label: 'analyseQuery (keyword search)', maxLength: CAP.keywordQuery, parse: analyseQuery, samples: QUERIES },
  { label: 'analyseQuery (semantic fallback)', maxLength: CAP.semanticQuery, parse: analyseQuery, samples: QUERIES },
  {
    label: 'resolveSemanticFilters (query inference)',
    maxLength: CAP.semanticQuery,
    parse: (q) => resolveSemanticFilters(q, {}, CURRENT_YEAR),
    samples: QUERIES,
  },
  {
    label: 'resolveSemanticFilters (caseNumber filter, every value it takes)',
    maxLength: CAP.filter.caseNumber.length,
    parse: (n) => resolveSemanticFilters('land', { caseNumber: atMost('caseNumber', n) }, CURRENT_YEAR),
    samples: CASE_NUMBERS,
  },
  {
    label: 'resolveFilters (court list, caseType, judgeName, year: one value each)',
    maxLength: CAP.filter.court.length,
    parse: (v) =>
      resolveFilters(
        {
          court: v,
          caseType: v.slice(0, CAP.filter.caseType.length),
          judgeName: v.slice(0, CAP.filter.judgeName.length),
          year: v.slice(0, CAP.filter.year.length),
        },
        CURRENT_YEAR,
      ),
    samples: FILTER_SAMPLES,
  },
  {
    label: 'resolveFilters (court, caseType, judgeName, year: every value each takes)',
    maxLength: CAP.filter.judgeName.length,
    parse: (v) =>
      resolveFilters(
        {
          court: atMost('court', v.replaceAll(',', ' ')),
          caseType: atMost('caseType', v.slice(0, CAP.filter.caseType.length)),
          judgeName: atMost('judgeName', v),
          year: atMost('year', v.slice(0, CAP.filter.year.length)),
        },
        CURRENT_YEAR,
      ),
    samples: FILTER_SAMPLES,
  },
  { label: 'normalisePartyName', maxLength: CAP.name, parse: normalisePartyName, samples: NAMES },
  { label: 'parseScreenedName', maxLength: CAP.name, parse: (n) => parseScreenedName(n, 'company'), samples: NAMES },
  {
    label: 'parseParty (known persons, relatives in the name)',
    maxLength: CAP.name,
    parse: (n) => parseParty(n, 'person'),
    samples: NAMES,
  },
  {
    label: 'prepareQuery (litigation check: 8 names, 10 known persons, person)',
    maxLength: CAP.name,
    parse: (n) => screeningAtCaps(n, 'person'),
    samples: NAMES,
  },
  {
    label: 'prepareQuery (litigation check: 8 names, 10 known persons, company)',
    maxLength: CAP.name,
    parse: (n) => screeningAtCaps(n, 'company'),
    samples: NAMES,
  },
  {
    label: 'placesOf (address)',
    maxLength: CAP.place,
    parse: (p) => placesOf({ city: p, state: p, stateCode: p.slice(0, 2) }),
    samples: ['Mumbai', 'Uttar Pradesh', 'MH', '27', 'New Delhi'],
  },
  {
    label: 'validateIdentifier',
    maxLength: CAP.identifier,
    parse: (id) => IDENTIFIER_KINDS.map((kind) => validateIdentifier(kind, id)),
    samples: IDENTIFIERS,
  },
  {
    label: 'findIdentifiers (a record naming the caller)',
    maxLength: CAP.semanticQuery,
    parse: findIdentifiers,
    samples: ['PAN AABCB5576G, GSTIN 27AAPFU0939F1ZV, CIN L17110MH1973PLC019786, LLPIN: AAB-9032'],
  },
  {
    label: 'judgeKey (GET /judges/search q)',
    maxLength: CAP.judgeQuery,
    parse: judgeKey,
    samples: ["HON'BLE MR. JUSTICE D.Y. CHANDRACHUD", 'chandrachud'],
  },
  {
    label: 'Idempotency-Key',
    maxLength: CAP.header,
    parse: (k) => IDEMPOTENCY_KEY_PATTERN.test(k),
    samples: ['charge-2026-11-26.001'],
  },
  {
    label: 'X-Forwarded-For hop',
    maxLength: CAP.header,
    parse: parseAddress,
    samples: ['203.0.113.9', '[fe80::1%eth0]', '::ffff:10.0.0.1'],
  },
  {
    label: 'X-API-Key shape',
    maxLength: CAP.header,
    parse: (k) => apiKeys.wellFormed(k),
    samples: ['crk_live-0123456789abcdefghijABCDEFGHIJ01-abcd'],
  },
];

/** Tokens that make ambiguous quantifiers (`\s*-?\s*`, `(\d+)\s*-`, `.*?\s*`) try every split. */
const FILLERS = [
  ' ',
  '  ',
  '\t',
  '1 ',
  '12',
  '1',
  'a-',
  '-',
  ' - ',
  '.',
  '..',
  '/',
  '(',
  ')',
  '( ',
  'a',
  'A',
  'AB',
  'x.',
  ' .',
  ',',
  "'",
  '&',
];
/** Tokens that steer a parser into its deepest branch before the filler starts. */
const HEADS = [
  '',
  'ABCD',
  'GAHC01',
  'GAHC01-022550',
  'C.A. No.',
  'Civil Appeal No. 12',
  'CA 1918',
  '1918',
  'SLP (Crl',
  'AIR ',
  'State of U',
  'M/s',
  'J',
  'NO',
  'ABCDE12345',
  '27AAPFU0939F1Z',
  'LLPIN',
  'Shri A s/o',
];
/** Endings that make the whole match fail, so the engine tries every split before giving up. */
const TAILS = ['', 'X', '!', ' of 2015', '/2015', '-2018', ' - 2015', ')', '\n', 'vs', '@'];

/** `unit` repeated and cut to exactly `length` characters. */
function fill(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** A head, one filler repeated, a tail: exactly `length` characters. */
export function adversarialText(head: string, filler: string, tail: string, length: number): string {
  return `${head}${fill(filler, Math.max(0, length - head.length - tail.length))}${tail}`.slice(0, length);
}

/** Every head × filler × tail at `length` characters: the worst cases the benchmark times. */
export function* adversarialTexts(length: number): Generator<{ readonly shape: string; readonly text: string }> {
  for (const head of HEADS)
    for (const filler of FILLERS)
      for (const tail of TAILS) yield { shape: JSON.stringify([head, filler, tail]), text: adversarialText(head, filler, tail, length) };
}

/** Adversarial text of `length` characters: one repeated filler between a head and a tail, or a repeated mix of tokens. */
export function adversarial(length: number): fc.Arbitrary<string> {
  const shaped = fc
    .record({
      head: fc.constantFrom(...HEADS),
      filler: fc.array(fc.constantFrom(...FILLERS), { minLength: 1, maxLength: 3 }),
      tail: fc.constantFrom(...TAILS),
    })
    .map(({ head, filler, tail }) => adversarialText(head, filler.join(''), tail, length));
  const mixed = fc
    .array(fc.constantFrom(...FILLERS, ...HEADS, ...TAILS), { minLength: 1, maxLength: 40 })
    .filter((parts) => parts.join('') !== '')
    .map((parts) => fill(parts.join(''), length));
  return fc.oneof(shaped, mixed);
}
