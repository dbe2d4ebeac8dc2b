/**
 * The search-result card both bulk datasets keep as `raw_html`: the judgments portals'
 * HTML for one hit. The High Court card is `<button ..>TITLE</button> excerpt
 * <strong>Judge : NAME</strong> <strong class="caseDetailsTD"><span> CNR :</span>
 * <font> VALUE</font><span> | Decision Date :</span><font> DD-MM-YYYY</font> ...
 * <span>Court : NAME</span></strong>`; the Supreme Court card (eSCR) uses the same
 * `caseDetailsTD` label/value pairs (`Case No`, `Decision Date`, ...). Field names and
 * structure follow vanga/indian-high-court-judgments src/utils/html_utils.py and
 * vanga/indian-supreme-court-judgments process_metadata.py.
 *
 * Read by a single left-to-right scan over tags and text (indexOf, no backtracking
 * patterns), because the card is input from a file we did not write. Pure.
 */
import { decodeEntities } from '../source-text.ts';

export interface ResultCard {
  /** Text of the first `<button>`: `CASE_NO of PETITIONER Vs RESPONDENT` on the HC portal. */
  title: string;
  /** Text directly under the card root: the judgment's excerpt. */
  description: string;
  /** The first `<strong>` outside the details block, e.g. `Judge : X` / `Coram : X`. */
  heading: string;
  /** `caseDetailsTD` pairs by label (lower case, `|` and `:` removed), e.g. `cnr`, `decision date`. */
  details: Record<string, string>;
}

/** Cards are a few kilobytes; anything far larger is not a card. */
export const MAX_CARD_CHARS = 64 * 1024;

/** Text inside these is a field, not the excerpt (which sits directly in the card's container). */
const INLINE = new Set(['button', 'strong', 'span', 'font', 'a', 'select', 'option', 'sup', 'script', 'style', 'label']);

function clean(text: string): string {
  return decodeEntities(text).replace(/\s+/g, ' ').trim();
}

function tagName(tag: string): { name: string; closing: boolean } {
  const closing = tag.startsWith('/');
  const body = closing ? tag.slice(1) : tag;
  let end = 0;
  while (end < body.length && /[a-z0-9]/i.test(body[end] ?? '')) end += 1;
  return { name: body.slice(0, end).toLowerCase(), closing };
}

function label(text: string): string {
  let s = clean(text);
  if (s.startsWith('|')) s = s.slice(1);
  s = s.trim();
  if (s.endsWith(':')) s = s.slice(0, -1);
  return s.trim().toLowerCase();
}

/** Null when the input is not a card (too long, or no tags at all). */
export function readResultCard(html: string): ResultCard | null {
  if (html.length > MAX_CARD_CHARS || !html.includes('<')) return null;
  const card: ResultCard = { title: '', description: '', heading: '', details: {} };
  const open: string[] = [];
  let inDetails = false;
  let detailsDepth = 0;
  let pendingLabel: string | null = null;
  let text = '';
  const flushText = () => {
    const t = text;
    text = '';
    if (t.trim() === '') return;
    const top = open[open.length - 1];
    if (open.includes('button')) {
      if (card.title === '') card.title = clean(t);
      else card.title = `${card.title} ${clean(t)}`.trim();
    } else if (inDetails && top === 'span') {
      const l = label(t);
      // `Court : NAME` carries its value inside the span itself.
      const colon = l.indexOf(':');
      if (colon > 0) {
        const c = clean(t);
        card.details[l.slice(0, colon).trim()] = c.slice(c.indexOf(':') + 1).trim();
      } else {
        pendingLabel = l;
      }
    } else if (inDetails && top === 'font' && pendingLabel !== null) {
      card.details[pendingLabel] = clean(t);
      pendingLabel = null;
    } else if (!inDetails && top === 'strong') {
      if (card.heading === '') card.heading = clean(t);
    } else if (card.description === '' && !open.some((tag) => INLINE.has(tag))) {
      card.description = clean(t);
    }
  };
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      text += html.slice(i);
      break;
    }
    text += html.slice(i, lt);
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) break;
    flushText();
    const raw = html.slice(lt + 1, gt);
    i = gt + 1;
    if (raw.startsWith('!') || raw.startsWith('?')) continue;
    const { name, closing } = tagName(raw);
    if (name === '' || name === 'br' || name === 'input' || name === 'img' || raw.endsWith('/')) continue;
    if (closing) {
      const at = open.lastIndexOf(name);
      if (at >= 0) open.length = at;
      if (inDetails && open.length < detailsDepth) inDetails = false;
      continue;
    }
    open.push(name);
    if (!inDetails && name === 'strong' && /class\s*=\s*["']?caseDetailsTD/i.test(raw)) {
      inDetails = true;
      detailsDepth = open.length;
    }
  }
  flushText();
  return card;
}
