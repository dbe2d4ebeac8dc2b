/**
 * Reads one party string from a cause title or party list the way an Indian court writes
 * it, keeping every token's offsets so a match can point at the text that fired:
 * "SMT. KAMLA DEVI W/O LATE RAM SINGH, R/O VILLAGE X" is the party's own name (honorific
 * dropped), a relative's name (a corroborating signal, never the party), and an address tail.
 * "DANA YADAV @ DAHU" and "ROHIT DUTTA ALIAS ASHU" give several names for one party;
 * "PANKAJ SINGH TH BABITA DEVI" names who brings the case for the party ("TH" is eCourts'
 * "through"); "& ORS", "AND ANR" end the party. The same reader parses the screened name,
 * with the caller's entity type in place of the guess from company words. Pure.
 */
import type { EntityType } from './features.ts';
import { canonicalToken, phoneticKey } from './phonetic.ts';

export interface NameToken {
  /** Upper case, canonical spelling ("MOHAMMAD" for "Mohd."). */
  canon: string;
  /** Upper case as written, for slips in a word the canonical table rewrote. */
  written: string;
  key: string;
  /** Offsets into the parsed string. */
  start: number;
  end: number;
  initial: boolean;
  /** Company-form word (LTD, PVT, LLP, ...): no weight in similarity, kept for acronyms. */
  form: boolean;
  /** How much the token says about who this is (common fillers like KUMAR say less). */
  weight: number;
}

export type NameTokens = readonly NameToken[];

export interface ParsedParty {
  text: string;
  /** The party's own name, one entry per alias ("A @ B" gives two). */
  names: readonly NameTokens[];
  /** Names after S/o, D/o, W/o, "son of", "through": relatives and representatives. */
  relatives: readonly NameTokens[];
  /** Words after a comma, R/o or "village": place, address, occupation. */
  tail: NameTokens;
  organisation: boolean;
  /** An honorific, relation, alias or age was written: the party is a person. */
  personMarkers: boolean;
  /** The party is written under more than one name ("@", "alias", "urf"). */
  aliased: boolean;
}

const LEXEME =
  /(?<![\p{L}\p{N}])[SDWCHF]\s*\/\s*O(?![\p{L}\p{N}])\.?|(?<![\p{L}\p{N}])[MR]\s*\/\s*[SO](?![\p{L}\p{N}])\.?|[\p{L}\p{N}]+|[@&,;()]/giu;

const set = (words: string): ReadonlySet<string> => new Set(words.split(' '));

const PERSON_HONORIFICS = set(
  'SHRI SHREE SRI SH SHRIMATI SRIMATI SMT KUMARI KM KUM SUSHRI SELVI THIRU THIRUMATHI TMT DR MR MRS MS MISS MASTER MST MUSAMMAT LATE PROF ADV CAPT COL MAJ LT',
);
const ORGANISATION_OPENERS = set('M/S MESSRS THE');
const KIN_WORDS = set('SON DAUGHTER WIFE HUSBAND WIDOW FATHER MOTHER GUARDIAN');
const THROUGH_WORDS = set('THROUGH THR TH');
const REPRESENTATIVE_ROLES = set(
  'HIS HER ITS THEIR LRS LR LEGAL REPRESENTATIVE REPRESENTATIVES HEIRS NEXT FRIEND GUARDIAN NATURAL DIRECTOR PARTNER PROPRIETOR MANAGER MANAGING SECRETARY AUTHORISED AUTHORIZED SIGNATORY POWER ATTORNEY HOLDER CHAIRMAN PRESIDENT OF THE',
);
const ALIAS_WORDS = set('ALIAS ALIASES URF');
const ADDRESS_WORDS = set('R/O RESIDENT RESIDING VILLAGE VILL DISTRICT DIST AGED AGE YEARS YRS PO PS TEHSIL TALUKA OCCUPATION OCC');
const LIST_ENDINGS = set('ORS ANR OTHERS ANOTHER ETC');
const NOISE = set('DEAD DECEASED MINOR');
const PAREN_NOISE = set('D DEAD DECEASED SINCE MINOR WITH CONNECTED APPEAL APPEALS MATTERS PETITIONS');
const STOP_WORDS = set('OF THE FOR AND');
const FORMS = set('LTD LIMITED PVT PRIVATE LLP INC INCORPORATED COMPANY CORPORATION PLC LLC');
const WEAK_PERSON = set(
  'KUMAR KUMARI SINGH DEVI BAI BEGUM BANO BIBI LAL CHAND PRASAD NATH RANI KAUR BEN BHAI MOHAMMAD ABDUL SAYYED SHEIKH',
);
const WEAK_ORGANISATION = set('INDIA');

/** Words that make a party an organisation rather than a person. */
export const ORGANISATION_WORDS = set(
  'LTD LIMITED PVT PRIVATE LLP INC COMPANY CORPORATION BANK INDUSTRIES ENTERPRISES TRADERS TRADING MILLS WORKS INSURANCE FINANCE FINANCIAL SERVICES HOLDINGS INFRASTRUCTURE CONSTRUCTION CONSTRUCTIONS ASSOCIATES BROTHERS GROUP TRUST SOCIETY ASSOCIATION BOARD AUTHORITY COUNCIL COMMISSION COMMISSIONER COLLECTOR GOVERNMENT MUNICIPAL MUNICIPALITY PANCHAYAT DEPARTMENT MINISTRY DIRECTORATE SECRETARY REGISTRAR TRIBUNAL UNIVERSITY COLLEGE SCHOOL HOSPITAL POLICE INSPECTOR SUPERINTENDENT OFFICER CUSTOMS EXCISE NIGAM UDYOG SANGH SAMITI MANDAL PARISHAD COOPERATIVE SAHAKARI FEDERATION UNION STATE LABORATORIES PHARMACEUTICALS CHEMICALS STEEL CEMENT TEXTILES MOTORS ELECTRICALS ENGINEERING ENGINEERS EXPORTS IMPORTS HOTELS DEVELOPERS BUILDERS WAKF DEVASWOM TEMPLE',
);

interface Word {
  upper: string;
  start: number;
  end: number;
  inParen: boolean;
}

type Piece = Word | 'AND';

interface Group {
  role: 'name' | 'relative';
  variants: Piece[][];
}

interface Lexed {
  groups: Group[];
  tail: Word[];
  aliasSeen: boolean;
  addressSeen: boolean;
  /** S/o, D/o, W/o, "son of": a family relation, which only persons have ("through" is not one). */
  kinSeen: boolean;
}

function slashForm(raw: string): string {
  return raw.toUpperCase().replace(/[\s.]/g, '');
}

function lex(text: string): Lexed {
  const lexemes = Array.from(text.matchAll(LEXEME), (m) => ({
    raw: m[0],
    upper: slashForm(m[0]),
    start: m.index,
    end: m.index + m[0].length,
  }));
  const groups: Group[] = [{ role: 'name', variants: [[]] }];
  const tail: Word[] = [];
  let mode: 'party' | 'tail' = 'party';
  let inParen = false;
  let aliasSeen = false;
  let addressSeen = false;
  let kinSeen = false;
  const current = (): Piece[] => {
    const g = groups[groups.length - 1];
    const v = g?.variants[g.variants.length - 1];
    if (v === undefined) throw new Error('party reader lost its group');
    return v;
  };
  const startRelative = (): void => {
    groups.push({ role: 'relative', variants: [[]] });
    mode = 'party';
  };
  for (let i = 0; i < lexemes.length; i++) {
    const { upper, start, end } = lexemes[i] ?? { upper: '', start: 0, end: 0 };
    const next = lexemes[i + 1]?.upper;
    if (upper === '(' || upper === ')') {
      inParen = upper === '(';
      continue;
    }
    if (/^[SDWHF]\/O$/.test(upper)) kinSeen = true;
    if (/^[SDWCHF]\/O$/.test(upper)) {
      startRelative();
      continue;
    }
    if ((KIN_WORDS.has(upper) && next === 'OF') || ((upper === 'REPRESENTED' || upper === 'REP') && next === 'BY')) {
      kinSeen ||= KIN_WORDS.has(upper);
      startRelative();
      i++;
      continue;
    }
    if (THROUGH_WORDS.has(upper)) {
      startRelative();
      continue;
    }
    if (LIST_ENDINGS.has(upper) || /^\d+(?:ORS|OTHERS)$/.test(upper)) {
      const v = current();
      if (v[v.length - 1] === 'AND') v.pop();
      break;
    }
    // "DISTRICT BOARD ..." is a name; an address word only ends a name already begun.
    if (upper === ',' || upper === ';' || (ADDRESS_WORDS.has(upper) && current().some(isWord))) {
      addressSeen ||= ADDRESS_WORDS.has(upper);
      if (upper === 'RESIDENT' && next === 'OF') i++;
      mode = 'tail';
      continue;
    }
    if (mode === 'tail') {
      if (upper !== '@' && upper !== '&') tail.push({ upper, start, end, inParen });
      continue;
    }
    if (upper === '@' || ALIAS_WORDS.has(upper)) {
      aliasSeen = true;
      groups[groups.length - 1]?.variants.push([]);
      continue;
    }
    if (upper === '&' || upper === 'AND') {
      current().push('AND');
      continue;
    }
    if (NOISE.has(upper) || (inParen && PAREN_NOISE.has(upper))) continue;
    const group = groups[groups.length - 1];
    if (group?.role === 'relative' && current().length === 0 && REPRESENTATIVE_ROLES.has(upper)) continue;
    current().push({ upper, start, end, inParen });
  }
  return { groups, tail, aliasSeen, addressSeen, kinSeen };
}

function isWord(p: Piece): p is Word {
  return p !== 'AND';
}

function dropOpeners(words: readonly Word[], openers: ReadonlySet<string>): Word[] {
  let i = 0;
  while (i < words.length && openers.has(words[i]?.upper ?? '')) i++;
  return words.slice(i);
}

function splitOnAnd(pieces: readonly Piece[]): Word[][] {
  const out: Word[][] = [[]];
  for (const p of pieces) {
    if (isWord(p)) out[out.length - 1]?.push(p);
    else out.push([]);
  }
  return out.filter((w) => w.length > 0);
}

const VOWELS = /[AEIOUY]/;

function token(w: Word, canon: string, start: number, end: number, organisation: boolean, form: boolean): NameToken {
  const written = canon.length === 1 ? canon : w.upper;
  const initial = canon.length === 1;
  const weak = organisation ? WEAK_ORGANISATION.has(canon) : WEAK_PERSON.has(canon);
  const weight = form ? 0 : initial ? 0.6 : weak ? (organisation ? 0.3 : 0.6) : 1;
  return { canon, written, key: phoneticKey(canon), start, end, initial, form, weight };
}

/** Words of one name into tokens: forms flagged, stop words gone, "RK" read as R, K. */
function tokensOf(words: readonly Word[], organisation: boolean): NameToken[] {
  const out: NameToken[] = [];
  words.forEach((w, i) => {
    const canon = canonicalToken(w.upper);
    const after = words[i + 1]?.upper;
    const isCompanyP = canon === 'P' && (w.inParen || after === 'LTD' || after === 'LIMITED');
    const isCompanyCo = canon === 'CO' && (after === undefined || after === 'LTD' || after === 'LIMITED' || after === 'PVT');
    if (STOP_WORDS.has(canon)) return;
    if (FORMS.has(canon) || isCompanyP || isCompanyCo) {
      out.push(token(w, canon, w.start, w.end, organisation, true));
      return;
    }
    const looksLikeInitials =
      !organisation && canon.length <= 3 && canon.length > 1 && !VOWELS.test(canon) && canon === w.upper && /^[A-Z]+$/.test(canon);
    if (looksLikeInitials) {
      for (let k = 0; k < canon.length; k++) out.push(token(w, canon.charAt(k), w.start + k, w.start + k + 1, organisation, false));
      return;
    }
    out.push(token(w, canon, w.start, w.end, organisation, false));
  });
  return out;
}

/** "DANA YADAV @ DAHU": the short alias also gets the family name ("DAHU YADAV"). */
function withFamilyName(variants: readonly NameToken[][]): NameToken[][] {
  const full = variants.find((v) => v.filter((t) => !t.form).length >= 2);
  const family = full?.[full.length - 1];
  if (family === undefined || variants.length < 2) return [...variants];
  const extra = variants.filter((v) => v.length === 1 && v[0]?.initial === false && v[0].canon !== family.canon).map((v) => [...v, family]);
  return [...variants, ...extra];
}

/** Company or public-body words, "M/S", or an "of" ("Bank of Baroda", "U T of J and K"). */
function looksLikeOrganisation(words: readonly Word[]): boolean {
  return (
    hasAny(words, ORGANISATION_WORDS) || ['M/S', 'MESSRS'].includes(words[0]?.upper ?? '') || words.slice(1).some((w) => w.upper === 'OF')
  );
}

function hasAny(words: readonly { upper: string }[], vocabulary: ReadonlySet<string>): boolean {
  return words.some((w) => vocabulary.has(canonicalToken(w.upper)));
}

const ANY_OPENER = new Set([...PERSON_HONORIFICS, ...ORGANISATION_OPENERS]);

/** One group's names: honorifics dropped, persons joined by "and" told apart. */
function namesOf(group: Group | undefined, organisation: boolean): NameToken[][] {
  const openers = organisation ? ORGANISATION_OPENERS : ANY_OPENER;
  return withFamilyName(
    (group?.variants ?? [])
      .flatMap((v) => (organisation ? [v.filter(isWord)] : splitOnAnd(v)))
      .map((words) => tokensOf(dropOpeners(words, openers), organisation))
      .filter((t) => t.length > 0),
  );
}

export function parseParty(text: string, entityType?: EntityType): ParsedParty {
  const lexed = lex(text);
  const [own, ...others] = lexed.groups;
  const ownWords = (own?.variants ?? []).flat().filter(isWord);
  const honorificLed = (own?.variants ?? []).some((v) => {
    const first = v.find(isWord);
    return first !== undefined && PERSON_HONORIFICS.has(first.upper);
  });
  const personMarkers = honorificLed || lexed.kinSeen || lexed.aliasSeen || lexed.addressSeen;
  const organisation = entityType === undefined ? looksLikeOrganisation(ownWords) : entityType === 'company';
  return {
    text,
    names: namesOf(own, organisation),
    relatives: others.flatMap((g) => namesOf(g, looksLikeOrganisation(g.variants.flat().filter(isWord)))),
    tail: tokensOf(lexed.tail, true).filter((t) => !t.form),
    organisation,
    personMarkers,
    aliased: lexed.aliasSeen,
  };
}
