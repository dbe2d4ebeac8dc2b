/**
 * Query variants: how a caller might type a name that a court record spells differently.
 * Each variant is a synthetic perturbation of a real party name (one typo, initials,
 * honorific added or dropped, a transliteration swap, word order, an alias, a different
 * corporate suffix), so the evaluation set tests the spellings the matcher has to bridge
 * without inventing people. Casing is varied too, since callers rarely type upper case.
 */
import type { EntityType, ScreeningQuery } from '../../src/domain/screening/features.ts';
import type { ParsedParty } from './parties.ts';
import { pick } from './random.ts';

export type VariantKind =
  | 'exact'
  | 'typo'
  | 'initials'
  | 'honorific'
  | 'transliteration'
  | 'word-order'
  | 'alias-listed'
  | 'alias-only'
  | 'suffix'
  | 'hand-checked';

export interface QueryVariant {
  kind: VariantKind;
  name: string;
  aliases: string[];
}

const HONORIFICS = ['Shri', 'Sri', 'Mr.', 'Dr.', 'Smt.'];

/** One spelling rule each way; Indian names are romanised inconsistently along exactly these lines. */
const TRANSLITERATIONS: readonly (readonly [RegExp, string])[] = [
  [/AA/, 'A'],
  [/([^AEIOU])A([^AEIOU])/, '$1AA$2'],
  [/EE/, 'I'],
  [/([^AEIOU])I([^AEIOU])/, '$1EE$2'],
  [/OO/, 'U'],
  [/([^AEIOU])U([^AEIOU])/, '$1OO$2'],
  [/V/, 'W'],
  [/W/, 'V'],
  [/SH/, 'S'],
  [/([AEIOU])S([AEIOU])/, '$1SH$2'],
  [/PH/, 'F'],
  [/TH/, 'T'],
  [/DH/, 'D'],
  [/KH/, 'K'],
  [/BH/, 'B'],
  [/Y$/, 'I'],
  [/I$/, 'Y'],
  [/Z/, 'J'],
  [/KSH/, 'X'],
  [/Q/, 'K'],
  [/OU/, 'U'],
];

const FORM_PATTERN = /\s*\b(?:PVT\.?\s*LTD\.?|PRIVATE\s+LIMITED|\(P\)\s*LTD\.?|LTD\.?|LIMITED|CO\.?,?\s*LTD\.?)\s*$/;

function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

function withoutHonorific(party: ParsedParty): string {
  return party.honorific === null ? party.primary : party.primary.slice(party.honorific.length).trim();
}

function recase(random: () => number, text: string): string {
  const r = random();
  if (r < 0.4) return text;
  if (r < 0.9) return text.toLowerCase().replace(/(^|[\s.(@/-])([a-z])/g, (_m, a: string, b: string) => a + b.toUpperCase());
  return text.toLowerCase();
}

function typo(random: () => number, text: string): string | null {
  const list = words(text);
  const candidates = list.map((w, i) => ({ w, i })).filter(({ w }) => /^[A-Z]{4,}$/.test(w));
  if (candidates.length === 0) return null;
  const { w, i } = pick(random, candidates);
  const at = 1 + Math.floor(random() * (w.length - 1));
  const op = Math.floor(random() * 4);
  const letter = pick(random, 'AEIOUNRSTLKMH'.split(''));
  const changed =
    op === 0
      ? w.slice(0, at) + (letter === w[at] ? 'Y' : letter) + w.slice(at + 1)
      : op === 1
        ? w.slice(0, at) + w.slice(at + 1)
        : op === 2
          ? w.slice(0, at) + w[at - 1]! + w.slice(at)
          : at < w.length - 1
            ? w.slice(0, at) + w[at + 1]! + w[at]! + w.slice(at + 2)
            : w.slice(0, at - 1) + w[at]! + w[at - 1]!;
  if (changed === w) return null;
  list[i] = changed;
  return list.join(' ');
}

function initials(text: string): string | null {
  const list = words(text.replace(/\./g, '. ').replace(/\s+/g, ' '));
  if (list.length < 2) return null;
  const head = list.slice(0, -1);
  if (head.every((w) => w.replace(/\./g, '').length <= 1)) return null;
  return `${head.map((w) => `${w.replace(/\./g, '')[0] ?? ''}.`).join('')} ${list[list.length - 1]!}`;
}

function transliteration(random: () => number, text: string): string | null {
  const list = words(text);
  const options = list.flatMap((w, i) =>
    /^[A-Z]{3,}$/.test(w) ? TRANSLITERATIONS.filter(([from]) => from.test(w)).map((rule) => ({ i, rule })) : [],
  );
  if (options.length === 0) return null;
  const { i, rule } = pick(random, options);
  list[i] = list[i]!.replace(rule[0], rule[1]);
  return list.join(' ');
}

function wordOrder(text: string): string | null {
  const list = words(text);
  if (list.length < 2) return null;
  return [list[list.length - 1]!, ...list.slice(0, -1)].join(' ');
}

function suffix(random: () => number, text: string): string | null {
  const base = text
    .replace(FORM_PATTERN, '')
    .replace(/^(?:M\/S\.?|MESSRS\.?)\s*/, '')
    .trim();
  const forms = ['', ' Ltd', ' Limited', ' Pvt. Ltd.', ' Private Limited', ' Co. Ltd.'];
  const prefix = random() < 0.2 ? 'M/s. ' : '';
  const changed = `${prefix}${base}${pick(random, forms)}`;
  return changed.toUpperCase() === text.toUpperCase() ? null : changed;
}

/** The variant kinds this party can produce (an alias variant needs an alias in the record, and so on). */
export function applicableKinds(party: ParsedParty, entityType: EntityType): VariantKind[] {
  const kinds: VariantKind[] = ['exact', 'typo', 'transliteration'];
  if (entityType === 'company') return [...kinds, 'suffix'];
  kinds.push('honorific', 'word-order', 'initials');
  if (party.aliases.length > 0) kinds.push('alias-listed');
  if (party.aliases.some((a) => words(a).length >= 2)) kinds.push('alias-only');
  return kinds;
}

/** A variant of the requested kind, or null when the name gives nothing to perturb. */
export function makeVariant(random: () => number, party: ParsedParty, kind: VariantKind): QueryVariant | null {
  const bare = withoutHonorific(party);
  let name: string | null;
  let aliases: string[] = [];
  switch (kind) {
    case 'exact':
    case 'hand-checked':
      name = party.primary;
      break;
    case 'typo':
      name = typo(random, bare);
      break;
    case 'initials':
      name = initials(bare);
      break;
    case 'honorific':
      name = party.honorific === null ? `${pick(random, HONORIFICS)} ${bare}` : bare;
      break;
    case 'transliteration':
      name = transliteration(random, bare);
      break;
    case 'word-order':
      name = wordOrder(bare);
      break;
    case 'alias-listed':
      name = bare;
      aliases = [...party.aliases];
      break;
    case 'alias-only':
      name = party.aliases.find((a) => words(a).length >= 2) ?? null;
      break;
    case 'suffix':
      name = suffix(random, party.primary);
      break;
  }
  if (name === null) return null;
  return { kind, name: recase(random, name), aliases: aliases.map((a) => recase(random, a)) };
}

export function toQuery(
  variant: QueryVariant,
  entityType: EntityType,
  extra: Pick<ScreeningQuery, 'address' | 'knownPersons'>,
): ScreeningQuery {
  return {
    name: variant.name,
    aliases: variant.aliases,
    entityType,
    identifiers: {},
    ...(extra.address === undefined ? {} : { address: extra.address }),
    knownPersons: extra.knownPersons,
  };
}
