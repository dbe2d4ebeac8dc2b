/**
 * How the evaluation set reads a party string for labelling: person, company or neither;
 * the identity key that decides "same entity"; and the relation ("S/o X", "TH X"), aliases
 * ("X @ Y", "X ALIAS Y") and trailing place (", CHANDIGARH") that corroborate or vary a
 * query. Deliberately written apart from the screening feature code: labels produced by the
 * matcher's own normaliser would grade the matcher against itself.
 */

export type PartyKind = 'person' | 'company' | 'other';
export type RelationKind = 'son-of' | 'daughter-of' | 'wife-of' | 'through';

export interface ParsedParty {
  kind: PartyKind;
  /** Upper-case display form of the main name, honorifics kept (variants may drop or add them). */
  primary: string;
  /** Same-entity key: persons, tokens of the main name; companies, the name without form words. */
  key: string;
  aliases: readonly string[];
  honorific: string | null;
  relation: { kind: RelationKind; name: string } | null;
  place: string | null;
}

const LIST_ENDING = /\s*(?:,|&|\bAND\b)?\s*(?:&\s*)?(?:\d+\s*)?\b(?:ORS|ANR|OTHERS|ANOTHERS?|ETC)\b\.?.*$/;
const STATUS =
  /\((?:DEAD|DECEASED|D|SINCE DECEASED)\)|\b(?:SINCE )?DECEASED\b|\b(?:THR?O?U?G?H?\.?|BY) (?:(?:HIS|HER|THEIR) )?(?:L\.?\s?RS?\.?|LEGAL HEIRS?|LEGAL REPRESENTATI\w*|REPRESENTATI\w*|NEXT FRIEND)\b.*$/g;
const HONORIFIC = /^(?:SHRIMATI|SHRI|SHREE|SRI|SMT|SH|KUMARI|KUM|DR|MR|MRS|MS|LATE|PROF|SARDAR|THIRU)\.?\s+/;
const RELATION = /[,\s]+(S\/O|D\/O|W\/O|SON OF|DAUGHTER OF|WIFE OF|TH\.?|THROUGH)\.?\s+(?:LATE\s+|SHRI\s+|SMT\.?\s+)?([A-Z][A-Z.\s]*)$/;
const ALIAS_SPLIT = /\s+@\s*|\s*@\s+|\s+ALIAS\s+/;

/** Words that make a party an institution rather than a person or a company. */
const OFFICIAL =
  /\b(?:STATE|UNION|INDIA|GOVT|GOVERNMENT|COMMISSIONER|COMMR|COLLECTOR|OFFICER|SECRETARY|SECY|DIRECTOR|MANAGER|CHAIRMAN|MUNICIPAL|MUNICIPALITY|BOARD|AUTHORITY|TRIBUNAL|COURT|POLICE|INSPECTOR|WORKMEN|WORKERS|EMPLOYEES|ASSOCIATION|SOCIETY|COMMITTEE|COUNCIL|UNIVERSITY|COLLEGE|SCHOOL|TRUST|PANCHAYAT|ADMINISTRATION|DEPARTMENT|DEPTT|MINISTRY|REGISTRAR|CORPORATION OF|CBI|C B I|UOI|U O I|DMAI|ELECTION|CUSTOMS|EXCISE|INCOME TAX|REVENUE|CENTRAL|NATIONAL|PUBLIC|PRESIDENT|MANAGEMENT|MANGT|RAILWAY|RAILWAYS|HOSPITAL|TEMPLE|MANDIR|MASJID|WAKF|DEVASWOM|UT|DISTRICT|ESTATE|CITIZENS|FORUM|PARTY|SANGH|SAMITI|MANDAL|MAGISTRATE|CUSTODIAN|ADMN|GOVERNOR|LT|RECEIVER|CONTROLLER|COMMNR|COMNR|CCE|ENGINEER|TRUSTEES|INSTITUTE|SERVICE|STORES|TALKIES|HOTEL|PROPERTY|CHAMBER|CENTRE|CLUB|SUPERINTENDENT|DY|DIST|CIT|C I T|EXPORT|JUDGE|ADVOCATE|TEHSILDAR|SARPANCH|V\/O|MUST|MAHASABHA|FEDERATION|UNIT|CELL|BUREAU|AGENCY|DIVISION|ZILA|NAGAR|VIKAS|PRADHIKARAN|PARISHAD|SABHA|KARKHANA)\b/;
/** Words that make a party a company (the form, or a line of business that only firms carry). */
const COMPANY_FORM =
  /\b(?:LTD|LIMITED|PVT|PRIVATE|CO|COMPANY|CORPORATION|CORPN|CORP|INC|LLP|INDUSTRIES|ENTERPRISES|MILLS|BANK|INSURANCE|TRADERS|SONS|BROTHERS|BROS|ASSURANCE|TEXTILES|STEELS?|CEMENTS?|CHEMICALS|PHARMACEUTICALS|MOTORS|AGENCIES|EXPORTS|BUILDERS|DEVELOPERS|HOLDINGS|FINANCE|INVESTMENTS|ENGINEERING|ENGINEERS|CONSTRUCTIONS?|PROPERTIES|HOTELS|TRADING)\b/;
/**
 * Roles and public bodies that turn a company-looking string into something else ("THE
 * CHAIRMAN, X LTD", "WORKMEN OF X", "STATE OF X", "MUNICIPAL CORPORATION"): the party is
 * not the company itself.
 */
const NOT_A_COMPANY =
  /\b(?:CHAIRMAN|DIRECTOR|MANAGER|OFFICER|SECRETARY|SECY|WORKMEN|WORKERS|EMPLOYEES|STAFF|MANAGEMENT|MANGT|LIQUIDATOR|OL|ADMINISTRATOR|PRESIDENT|COMMISSIONER|COLLECTOR|GOVT|GOVERNMENT|STATE OF|UNION OF|MUNICIPAL|PANCHAYAT|UNION)\b/;

/** Trailing tokens that only state the legal form. */
const FORM_TOKENS = new Set(['CO', 'COMP', 'COMPANY', 'LTD', 'LIMITED', 'PVT', 'PRIVATE', 'P', 'LD', 'INC', 'LLP', 'PLC']);
/** Words whose presence or absence does not change which company is meant ("TEA AND PRODUCE", "CORPN. OF A.P."). */
const JOINING_TOKENS = new Set(['AND', 'OF', 'THE']);
const TOKEN_REWRITES: Readonly<Record<string, string>> = {
  CORPN: 'CORPORATION',
  CORP: 'CORPORATION',
  COOP: 'COOPERATIVE',
  BROS: 'BROTHERS',
  INDL: 'INDUSTRIAL',
  MFG: 'MANUFACTURING',
  MFTG: 'MANUFACTURING',
  I: 'INDIA',
};

function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** "D. H. BROTHERS" and "D.H. BROTHERS" both give "DH BROTHERS": runs of single letters join. */
function joinInitials(tokens: readonly string[]): string[] {
  const out: string[] = [];
  let run = '';
  for (const token of tokens) {
    if (token.length === 1) {
      run += token;
      continue;
    }
    if (run !== '') out.push(run);
    run = '';
    out.push(token);
  }
  if (run !== '') out.push(run);
  return out;
}

function tokens(text: string): string[] {
  return text
    .replace(/&/g, ' AND ')
    .replace(/[^A-Z0-9]+/g, ' ')
    .split(' ')
    .filter((t) => t !== '');
}

export function companyKey(name: string): string {
  let text = name.toUpperCase();
  text = text.replace(/\b(?:FORMERLY|EARLIER|PREVIOUSLY|NOW|THROUGH|THR|THRU|REPRESENTED|REP BY|VICE VERSA)\b.*$/, '');
  text = text
    .replace(/\((?:I|INDIA)\)/g, ' INDIA ')
    .replace(/\([^)]*\)?/g, ' ')
    .replace(/\bNO\.?\s*\d+\b|\bAND CONNECTED\b.*$/g, ' ');
  text = text.replace(/\bCO-?\s?OP(?:ERATIVE)?\b\.?/g, 'COOPERATIVE');
  text = text.replace(/^(?:M\/S\.?|MESSRS\.?|THE)\s*/g, '').replace(/^(?:M\/S\.?|MESSRS\.?|THE)\s*/g, '');
  const list = joinInitials(tokens(text))
    .map((t) => TOKEN_REWRITES[t] ?? t)
    .filter((t) => !FORM_TOKENS.has(t) && !JOINING_TOKENS.has(t));
  return list.join(' ');
}

export function personKey(name: string): string {
  return joinInitials(tokens(name.toUpperCase().replace(HONORIFIC, ''))).join(' ');
}

/** "X LTD., CHANDIGARH" → { name: "X LTD.", place: "CHANDIGARH" }: a short alphabetic tail after the company form is a branch or seat. */
function splitPlace(text: string, kind: PartyKind): { name: string; place: string | null } {
  const m =
    kind === 'company' ? /^(.*\b(?:LTD|LIMITED|CO|COMPANY|CORPORATION|BANK|MILLS)\b\.?)[,\s]+([A-Z][A-Z. ]{1,30})$/.exec(text) : null;
  if (m === null) return { name: text, place: null };
  const tail = m[2]!;
  if (tokens(tail).length > 3 || COMPANY_FORM.test(tail) || /^(?:OF|AND|FOR|IN|&)\b/.test(tail)) return { name: text, place: null };
  return { name: m[1]!, place: squeeze(tail.replace(/\./g, ' ')) };
}

export function classify(text: string): PartyKind {
  const upper = ` ${text.toUpperCase().replace(/[^A-Z0-9&/ ]+/g, ' ')} `;
  if (/^\s*(?:M\/S|MESSRS)\b/.test(upper)) return NOT_A_COMPANY.test(upper) ? 'other' : 'company';
  if (COMPANY_FORM.test(upper)) return NOT_A_COMPANY.test(upper) ? 'other' : 'company';
  // A comma in what is left of a person-like name is nearly always "OFFICE, PLACE" or "FIRM, TOWN".
  if (OFFICIAL.test(upper) || /\d/.test(upper) || text.includes(',')) return 'other';
  const words = tokens(text.toUpperCase().replace(HONORIFIC, ''));
  return words.length >= 1 && words.length <= 6 ? 'person' : 'other';
}

export function parseParty(raw: string): ParsedParty {
  let text = squeeze(raw.toUpperCase().replace(/&AMP;/g, '&'));
  text = squeeze(text.replace(LIST_ENDING, '').replace(STATUS, ' ')).replace(/[,.\s]+$/, '');
  const honorificMatch = HONORIFIC.exec(text);
  const honorific = honorificMatch ? honorificMatch[0].trim() : null;
  let relation: ParsedParty['relation'] = null;
  const rel = RELATION.exec(text);
  if (rel && rel.index > 0) {
    const word = rel[1]!.replace(/\.$/, '');
    const kind: RelationKind =
      word === 'S/O' || word === 'SON OF'
        ? 'son-of'
        : word === 'D/O' || word === 'DAUGHTER OF'
          ? 'daughter-of'
          : word === 'W/O' || word === 'WIFE OF'
            ? 'wife-of'
            : 'through';
    relation = { kind, name: squeeze(rel[2]!.replace(/\./g, ' ')) };
    text = text.slice(0, rel.index);
  }
  const kind = classify(text);
  const { name, place } = splitPlace(text, kind);
  const [primary = name, ...aliases] = kind === 'person' ? name.split(ALIAS_SPLIT).map(squeeze) : [name];
  return {
    kind,
    primary,
    key: kind === 'company' ? companyKey(primary) : personKey(primary),
    aliases: aliases.filter((a) => a !== ''),
    honorific,
    relation,
    place,
  };
}
