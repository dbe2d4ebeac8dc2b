/**
 * The fields of a candidate case a litigation check reads, each under the name a signal
 * span points at ("petitioners[0]", "respondents[2]", "title", "text"). When a record lists
 * no parties, the cause title is split at "v." / "vs" / "versus" into the two sides, with
 * offsets kept relative to the whole title. Pure.
 */
import type { CandidateRecord, PartyRole, SignalSpan } from './features.ts';
import { spansOf } from './names.ts';
import { type NameTokens, type ParsedParty, parseParty } from './party-parse.ts';

export interface PartyText {
  field: string;
  role: PartyRole;
  text: string;
  /** Offset of `text` inside the field (the cause title is split at "v."). */
  base: number;
  parsed: ParsedParty;
}

export function partiesOf(c: CandidateRecord): PartyText[] {
  const listed = (field: 'petitioners' | 'respondents', role: PartyRole) =>
    c[field].map((text, i) => ({ field: `${field}[${String(i)}]`, role, text, base: 0, parsed: parseParty(text) }));
  const parties = [...listed('petitioners', 'petitioner'), ...listed('respondents', 'respondent')];
  if (parties.length > 0 || c.title === null) return parties;
  const title = c.title;
  // Tried only where a run of spaces starts, so a long run is not rescanned from each space.
  const split = /(?<!\s)\s+(?:VS?|VERSUS)\.?\s+/i.exec(title);
  if (split === null) return [{ field: 'title', role: 'other', text: title, base: 0, parsed: parseParty(title) }];
  const after = split.index + split[0].length;
  return [
    { field: 'title', role: 'petitioner', text: title.slice(0, split.index), base: 0, parsed: parseParty(title.slice(0, split.index)) },
    { field: 'title', role: 'respondent', text: title.slice(after), base: after, parsed: parseParty(title.slice(after)) },
  ];
}

export function span(field: string, text: string, base: number, start: number, end: number): SignalSpan {
  return { field, start: base + start, end: base + end, text: text.slice(start, end) };
}

export function tokenSpans(party: PartyText, tokens: NameTokens): SignalSpan[] {
  return spansOf(tokens, party.text).map((s) => span(party.field, party.text, party.base, s.start, s.end));
}

export interface FieldText {
  field: string;
  text: string;
}

export function fieldsOf(c: CandidateRecord): FieldText[] {
  return [
    ...(c.title === null ? [] : [{ field: 'title', text: c.title }]),
    ...c.petitioners.map((text, i) => ({ field: `petitioners[${String(i)}]`, text })),
    ...c.respondents.map((text, i) => ({ field: `respondents[${String(i)}]`, text })),
    ...(c.text === null ? [] : [{ field: 'text', text: c.text }]),
  ];
}
