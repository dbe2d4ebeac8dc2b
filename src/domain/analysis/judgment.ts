/**
 * A judgment read for analysis: its paragraphs, where the court's own text begins, and
 * that text cut into sentences, each remembering its paragraph. What comes before the
 * body (the reporter's header and headnote, the case line, counsel, the date) is kept in
 * the paragraph numbering but never analysed: it is not the court's reasoning, and a
 * printed headnote would otherwise be "extracted" into the analysis of its own judgment.
 * The body starts at the first "The Judgment of the Court was delivered by ..." after the
 * last "JUDGMENT" heading or "... appellate jurisdiction:" case line of the opening;
 * without one, after the case line, appeal-from line, counsel and date that open the
 * text. Pure.
 */
import { isProse, paragraphsOf } from './paragraphs.ts';

export interface Sentence {
  readonly text: string;
  /** 1-based paragraph number. */
  readonly paragraph: number;
  /** Order within the body, from 0. */
  readonly index: number;
  /** How far through the body, 0 at its first sentence, 1 at its last. */
  readonly position: number;
}

export interface Judgment {
  readonly paragraphs: readonly string[];
  /** 1-based number of the first body paragraph. */
  readonly bodyStart: number;
  readonly sentences: readonly Sentence[];
  /** The source lower-cased everything (names and citations included). */
  readonly lowerCase: boolean;
}

const DELIVERED =
  /\b(?:judgment|opinion|order) of the court was (?:deliv ?ered|pronounced) by\b|\bdelivered the (?:following )?judgment\b/i;
const HEADING = /^(?:j ?u ?d ?g ?m ?e ?n ?t|o ?r ?d ?e ?r|common judgment)\s*[:.-]*$/i;
/** The case line that opens a Supreme Court judgment: "civil appellate jurisdiction: civil appeal no. 197 of 1961". */
const JURISDICTION = /\b(?:civil|criminal|original|appellate|writ|advisory|special|extraordinary) (?:[a-z]+ )?jurisdiction\s*:/i;
/** What sits between the case line and the judgment: the case line itself, appeal-from lines, counsel, the date. */
const PREAMBLE =
  /^(?:appeals?|petitions?|applications?)\b[^.]{0,40}\b(?:from|under|against)\b|^from the (?:judgment|order)|\bfor (?:the )?(?:appellants?|respondents?|petitioners?|state|union|interveners?|complainant|accused)\b|\b(?:advocate|attorney|solicitor)[- ]general\b|\bfor (?:rr?|pp?|aa?)\.\s?\d|^(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+\d|^(?:[A-Z]+:\s*)?(?:[a-z]+\s+)?(?:appeals?|petitions?|cases?|writs?|references?|suits?|applications?)\b[^.]{0,40}\bnos?\.|\b(?:did not appear|not represented)\b/i;
/** At most this many preamble paragraphs are skipped. */
const PREAMBLE_MAX = 30;
/** The body starts within this share of the text's characters: later "delivered by" lines open separate opinions. */
const OPENING_SHARE = 0.5;

/** Sentence-ending dots that are not: abbreviations the judgments use. */
const ABBREVIATIONS = new Set(
  (
    'no nos s ss sec secs art arts cl cls sub mr mrs ms dr vs v viz ltd co corpn govt misc crl cri civ supp suppl sri smt shri ' +
    'p pp para paras vol ch ors anr etc e g i ie eg j jj cj hon st rs u r o bros pvt inc dt ibid cf al ex sr jr dy addl asstt'
  ).split(' '),
);

/** The last paragraph of the opening that marks where the judgment proper begins, or -1. */
function anchorOf(opening: readonly string[]): number {
  return opening.reduce((last, p, i) => (HEADING.test(p.trim()) || JURISDICTION.test(p) ? i : last), -1);
}

function bodyStartOf(paragraphs: readonly string[]): number {
  const total = paragraphs.reduce((n, p) => n + p.length, 0);
  let seen = 0;
  const opening = paragraphs.filter((p) => {
    const inside = seen <= total * OPENING_SHARE;
    seen += p.length;
    return inside;
  });
  const anchor = anchorOf(opening);
  const delivered = opening.findIndex((p, i) => i > anchor && DELIVERED.test(p));
  if (delivered >= 0) return delivered + 1;
  // A heading after the delivery line is one the judgment quotes (an order it sets out).
  const deliveredEarlier = opening.findIndex((p) => DELIVERED.test(p));
  if (deliveredEarlier >= 0) return deliveredEarlier + 1;
  let start = anchor + 1;
  while (start < opening.length && start <= anchor + PREAMBLE_MAX && (PREAMBLE.test(opening[start]!) || !isProse(opening[start]!)))
    start += 1;
  return start < opening.length ? start + 1 : anchor + 2;
}

/** Splits a paragraph at sentence ends, not at the dots of abbreviations, initials or citations. */
export function splitSentences(paragraph: string): string[] {
  const out: string[] = [];
  let start = 0;
  const end = /([.?!]["')\]]*)\s+(?=["'(\[]?[A-Za-z0-9])/g;
  for (let m = end.exec(paragraph); m !== null; m = end.exec(paragraph)) {
    const before = paragraph.slice(start, m.index);
    const lastToken = /(?<![A-Za-z'])([A-Za-z']+)$/.exec(before)?.[1]?.toLowerCase() ?? '';
    const after = paragraph.slice(m.index + m[0].length);
    const dotted = m[1]?.startsWith('.') === true;
    const abbreviation = dotted && (ABBREVIATIONS.has(lastToken) || lastToken.length === 1 || /\b[A-Za-z]\.[A-Za-z]$/.test(before));
    const numberFollows = dotted && /^\d/.test(after) && /\b(?:no|nos|s|ss|sec|art|cl|rule|r|para|p|pp|vol)$/i.test(before);
    if (abbreviation || numberFollows) continue;
    out.push(paragraph.slice(start, m.index + m[1]!.length).trim());
    start = m.index + m[0].length;
  }
  const rest = paragraph.slice(start).trim();
  if (rest !== '') out.push(rest);
  return out;
}

/** Enough words to be a sentence of the judgment rather than debris. */
function sentenceLike(text: string): boolean {
  const tokens = text.split(/\s+/).filter((t) => t !== '');
  const wordy = tokens.filter((t) => /[A-Za-z]{2,}/.test(t)).length;
  return wordy >= 2 && wordy / tokens.length >= 0.5;
}

/** Drops "The Judgment of the Court was delivered by X J." from the sentence it opens. */
function withoutDeliveryLine(text: string): string {
  if (!DELIVERED.test(text)) return text;
  return text.replace(/^.*?deliv ?ered by\s+.{0,40}\b(?:c\.\s?j|jj?)\.(?:\s*-+\s*|\s+|$)/i, '').trim();
}

export function readJudgment(text: string): Judgment {
  const paragraphs = paragraphsOf(text);
  const bodyStart = bodyStartOf(paragraphs);
  const raw: { text: string; paragraph: number }[] = [];
  paragraphs.forEach((p, i) => {
    if (i + 1 < bodyStart) return;
    for (const s of splitSentences(p)) {
      const cleaned = withoutDeliveryLine(s);
      if (sentenceLike(cleaned)) raw.push({ text: cleaned, paragraph: i + 1 });
    }
  });
  const last = Math.max(1, raw.length - 1);
  const sentences = raw.map((s, index) => ({ ...s, index, position: index / last }));
  const letters = text.slice(0, 20_000).replace(/[^A-Za-z]/g, '');
  const lowerCase = letters.length > 0 && letters.replace(/[^A-Z]/g, '').length / letters.length < 0.01;
  return { paragraphs, bodyStart, sentences, lowerCase };
}
