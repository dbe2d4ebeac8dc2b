/**
 * Practice areas from the statutes and terms a judgment keeps using. The map is small on
 * purpose: thirteen areas, each a handful of statute names (strong evidence, weight 3)
 * and terms of art (weight 1), every cue a phrase a practitioner would recognise. An area
 * counts when its score reaches MIN_SCORE and at least a third of the leading area's;
 * each cue counts at most CAP times so one repeated word cannot carry an area. At most
 * three areas, strongest first. The agreement with the subject categories of
 * sc-rhetorical-roles-50 is measured in test/unit/analysis-practice-areas.unit.test.ts.
 * Pure.
 */

interface Cue {
  readonly pattern: RegExp;
  readonly weight: number;
}

const statute = (pattern: RegExp): Cue => ({ pattern, weight: 3 });
const term = (pattern: RegExp): Cue => ({ pattern, weight: 1 });

export const PRACTICE_AREAS: Readonly<Record<string, readonly Cue[]>> = {
  Constitutional: [
    statute(/\bconstitution(?:al)? (?:validity|bench|law|amendment)\b|\bfundamental rights?\b|\bviolative of articles?\b/gi),
    term(
      /\barticles? (?:12|13|14|15|16|19|21|25|26|29|30|31|32|245|246|254|301|304|368)\b|\bultra vires\b|\blegislative competence\b|\bdiscriminat\w+|\bequality before the law\b|\bentry \d+ of list\b|\bwrit of (?:mandamus|certiorari|prohibition|quo warranto)\b/gi,
    ),
  ],
  Criminal: [
    statute(
      /\b(?:indian penal code|i\.\s?p\.\s?c|code of criminal procedure|cr\.\s?p\.\s?c|evidence act|prevention of corruption act|n\.?d\.?p\.?s|arms act|dowry prohibition act)\b/gi,
    ),
    term(
      /\b(?:accused|convict(?:ed|ion)|acquitt(?:ed|al)|prosecution|murder|offences?|sessions (?:judge|court)|f\.\s?i\.\s?r|bail|rigorous imprisonment|complainant|charge[- ]sheet|culpable homicide|cognizance)\b/gi,
    ),
  ],
  'Property & Land': [
    statute(
      /\b(?:land acquisition act|transfer of property act|registration act|rent control|tenancy act|land reforms|zamindari abolition|requisition(?:ing)? and acquisition)\b/gi,
    ),
    term(
      /\b(?:tenan(?:t|ts|cy)|leases?|lessee|lessor|evacuee property|landlord|mortgage|easement|possession of the (?:land|property|premises)|title to the (?:land|property)|acquisition|compensation for the land|inam|jagir|zamindar|partition|immovable property|encroach\w*)\b/gi,
    ),
  ],
  'Family & Succession': [
    statute(
      /\b(?:hindu (?:marriage|succession|adoptions and maintenance|minority and guardianship) act|special marriage act|indian succession act|guardians and wards act|muslim personal law)\b/gi,
    ),
    term(
      /\b(?:divorce|maintenance|testat(?:or|rix)|probate|adoption|custody|widow|coparcen\w+|joint (?:hindu )?family|intestate|heirs?)\b/gi,
    ),
  ],
  Taxation: [
    statute(
      /\b(?:income[- ]tax act|sales tax act|central excise|customs act|wealth[- ]tax act|gift[- ]tax act|finance act|goods and services tax|estate duty act)\b/gi,
    ),
    term(/\b(?:assessee|assessment years?|income[- ]tax officer|taxable|tax(?:es|ation)?|excise duty|cess|levy|deduction|exemption)\b/gi),
  ],
  'Labour & Employment': [
    statute(
      /\b(?:industrial disputes act|factories act|payment of (?:wages|bonus|gratuity) act|minimum wages act|trade unions act|workmen'?s compensation act|employees'? (?:state insurance|provident funds?)|maternity benefit act|industrial employment \(standing orders\)|contract labour)\b/gi,
    ),
    term(
      /\b(?:workm[ae]n|industrial tribunal|labour court|wages|bonus|retrenchment|gratuity|standing orders|seniority|promotion|pay scales?|disciplinary|dismissal from service|termination of (?:the )?services?|superannuation|recruitment|reinstatement|article 311|government servants?)\b/gi,
    ),
  ],
  'Intellectual Property': [
    statute(/\b(?:trade (?:and merchandise )?marks? act|copyright act|patents? act|designs act|geographical indications)\b/gi),
    term(
      /\b(?:trade ?marks?|copyright|patent(?:ee|s)?|passing off|infring\w+|deceptively similar|registered proprietor|cinematograph film)\b/gi,
    ),
  ],
  Arbitration: [
    statute(/\b(?:arbitration act|arbitration and conciliation act)\b/gi),
    term(/\b(?:arbitrat(?:or|ors|ion|al)|umpire|award(?:s)? (?:of|made by) the arbitrator)\b/gi),
  ],
  'Contract & Commercial': [
    statute(
      /\b(?:indian contract act|contract act|sale of goods act|negotiable instruments act|partnership act|specific relief act|banking regulation act)\b/gi,
    ),
    term(
      /\b(?:breach of contract|specific performance|damages|consideration|cheque|bank guarantee|letter of credit|partnership|promissory note|agreement to sell)\b/gi,
    ),
  ],
  'Company & Insolvency': [
    statute(/\b(?:companies act|insolvency and bankruptcy code|sick industrial companies|securities and exchange board|sebi act)\b/gi),
    term(
      /\b(?:shareholders?|winding[- ]up|liquidator|board of directors|balance sheet|annual general meeting|debentures?|insolven\w+)\b/gi,
    ),
  ],
  Election: [
    statute(/\b(?:representation of the people act|election commission)\b/gi),
    term(/\b(?:election petition|corrupt practices?|returned candidate|nomination paper|electoral rolls?|ballot)\b/gi),
  ],
  Environment: [
    statute(
      /\b(?:environment(?:al)? \(protection\) act|water \(prevention|air \(prevention|forest \(conservation\) act|wild ?life \(protection\) act|national green tribunal)\b/gi,
    ),
    term(/\b(?:pollution|environment(?:al)?|ecolog\w+|forest land|effluents?)\b/gi),
  ],
  'Civil Procedure': [
    statute(/\b(?:code of civil procedure|c\.\s?p\.\s?c|limitation act)\b/gi),
    term(/\b(?:res judicata|decree|execution|plaint|written statement|order \w+ rule \d+|suit|ex parte|temporary injunction)\b/gi),
  ],
};

const CAP = 6;
const MIN_SCORE = 6;
const SHARE_OF_LEADER = 1 / 3;
const MAX_AREAS = 3;

export function practiceAreasOf(text: string): string[] {
  const scored = Object.entries(PRACTICE_AREAS).map(([area, cues]) => ({
    area,
    score: cues.reduce((sum, cue) => sum + cue.weight * Math.min(CAP, text.match(cue.pattern)?.length ?? 0), 0),
  }));
  scored.sort((a, b) => b.score - a.score || a.area.localeCompare(b.area));
  const leader = scored[0]?.score ?? 0;
  return scored
    .filter((s) => s.score >= MIN_SCORE && s.score >= leader * SHARE_OF_LEADER)
    .slice(0, MAX_AREAS)
    .map((s) => s.area);
}
