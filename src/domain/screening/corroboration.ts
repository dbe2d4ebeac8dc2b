/**
 * Evidence about a candidate beyond its name: statutory identifiers written anywhere in the
 * record (matched or conflicting, compared by legal entity), the caller's address with the
 * matched party, the caller's known persons as the party's relatives or elsewhere in the
 * record, and whether the matched party is the kind of entity screened. Each comes back as
 * signals with the spans that fired. Pure.
 */
import { type FieldText, fieldsOf, type PartyText, span, tokenSpans } from './candidate-parties.ts';
import type { CandidateRecord, EntityType, ScreeningQuery, Signal, SignalSpan } from './features.ts';
import { compareIdentifiers, findIdentifiers, type FoundIdentifier, type SuppliedIdentifiers } from './identifiers.ts';
import { compareTokens } from './names.ts';
import type { NameTokens, ParsedParty } from './party-parse.ts';
import { finish, type Steps } from '../steps.ts';
import { type PreparedQuery, SAME_PERSON } from './prepared-query.ts';
import { findMentions, findPlace, type Mention, textWords, type TextWords } from './text-mentions.ts';

/** Words between a mention of the screened name and the city for the city to corroborate. */
const ADDRESS_WINDOW_WORDS = 60;

export function identifierSignals(query: ScreeningQuery, c: CandidateRecord): { matched: boolean; conflict: boolean; signals: Signal[] } {
  const supplied: SuppliedIdentifiers = query.identifiers;
  if ((['pan', 'gstin', 'cin', 'llpin'] as const).every((k) => supplied[k] === undefined))
    return { matched: false, conflict: false, signals: [] };
  const where = new Map<FoundIdentifier, FieldText>();
  for (const f of fieldsOf(c)) for (const id of findIdentifiers(f.text)) where.set(id, f);
  const { matched, conflicting } = compareIdentifiers(supplied, [...where.keys()]);
  const spansOfIds = (ids: readonly FoundIdentifier[]): SignalSpan[] =>
    ids.flatMap((id) => {
      const f = where.get(id);
      return f === undefined ? [] : [span(f.field, f.text, 0, id.start, id.end)];
    });
  const signals: Signal[] = [];
  if (matched.length > 0)
    signals.push({
      kind: 'identifier_match',
      detail: `${matched.map((m) => m.kind.toUpperCase()).join(', ')} supplied is written in the record`,
      spans: spansOfIds(matched),
    });
  if (conflicting.length > 0)
    signals.push({
      kind: 'identifier_conflict',
      detail: `the record carries a different ${[...new Set(conflicting.map((m) => m.kind.toUpperCase()))].join(', ')} from the one supplied`,
      spans: spansOfIds(conflicting),
    });
  return { matched: matched.length > 0, conflict: conflicting.length > 0 && matched.length === 0, signals };
}

function tailPlaces(party: PartyText, places: readonly string[]): SignalSpan[] {
  const tail = party.parsed.tail;
  const out: SignalSpan[] = [];
  for (const place of places) {
    const parts = place.split(' ');
    for (let i = 0; i + parts.length <= tail.length; i++) {
      const first = tail[i];
      const last = tail[i + parts.length - 1];
      if (first === undefined || last === undefined || !parts.every((p, k) => tail[i + k]?.canon === p)) continue;
      out.push(span(party.field, party.text, party.base, first.start, last.end));
    }
  }
  return out;
}

export function addressSignal(
  prepared: PreparedQuery,
  party: PartyText | null,
  text: string | null,
  words: TextWords | null,
  nameMentions: readonly Mention[],
): Signal | null {
  const spans: SignalSpan[] = party === null ? [] : tailPlaces(party, [...prepared.cities, ...prepared.states]);
  if (spans.length === 0 && words !== null && nameMentions.length > 0)
    for (const city of prepared.cities)
      for (const m of findPlace(words, city))
        if (nameMentions.some((n) => Math.abs(n.word - m.word) <= ADDRESS_WINDOW_WORDS))
          spans.push(span('text', text ?? '', 0, m.start, m.end));
  return spans.length === 0 ? null : { kind: 'address', detail: 'the address supplied appears with the matched party', spans };
}

function relatesTo(known: NameTokens, name: NameTokens): boolean {
  const m = compareTokens(known, name, 'person');
  if (m.similarity >= SAME_PERSON) return true;
  // "S/O PANDURANG" names the father by first name only: all of it must agree, spelt out.
  return (
    m.candidateCoverage >= 0.95 &&
    m.pairs.some((p) => !p.candidate.initial && p.candidate.weight === 1 && (p.agreement === 'exact' || p.agreement === 'phonetic'))
  );
}

export function corroboration(
  prepared: PreparedQuery,
  c: CandidateRecord,
  parties: readonly PartyText[],
  own: PartyText | null,
  words: TextWords | null,
): Signal[] {
  return finish(corroborationSteps(prepared, c, parties, own, words));
}

/** `corroboration`, pausing after each known person (one pass over the text each). */
export function* corroborationSteps(
  prepared: PreparedQuery,
  c: CandidateRecord,
  parties: readonly PartyText[],
  own: PartyText | null,
  words: TextWords | null,
): Steps<Signal[]> {
  const signals: Signal[] = [];
  if (prepared.knownPersons.length === 0) return signals;
  const title = c.title === null ? null : textWords(c.title);
  const relation: SignalSpan[] = [];
  const associate: SignalSpan[] = [];
  for (const known of prepared.knownPersons) {
    if (own !== null) for (const rel of own.parsed.relatives) if (relatesTo(known, rel)) relation.push(...tokenSpans(own, rel));
    for (const party of parties) {
      if (party === own) continue;
      for (const name of [...party.parsed.names, ...party.parsed.relatives])
        if (compareTokens(known, name, 'person').similarity >= SAME_PERSON) associate.push(...tokenSpans(party, name));
    }
    for (const [field, source, text] of [
      ['title', title, c.title],
      ['text', words, c.text],
    ] as const)
      if (source !== null && text !== null)
        for (const m of findMentions(source, known)) associate.push(span(field, text, 0, m.start, m.end));
    yield;
  }
  if (relation.length > 0)
    signals.push({ kind: 'relation', detail: "a person supplied is named as the party's relative", spans: relation });
  if (associate.length > 0) signals.push({ kind: 'known_person', detail: 'a person supplied appears in the record', spans: associate });
  return signals;
}

export function entityTypeConsistent(entityType: EntityType, party: ParsedParty | null): boolean {
  if (party === null) return true;
  return entityType === 'company' ? party.organisation || !party.personMarkers : !party.organisation;
}
