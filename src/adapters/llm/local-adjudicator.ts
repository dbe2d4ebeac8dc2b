/**
 * The embedded default adjudicator: not a language model, and named so in every match it
 * touches ("local-context-rules-v1"). It reads the record's own words around the screened
 * name (the matched party entry, and each in-order mention of a screened name in the
 * judgment text, found as the features stage finds them) and moves the calibrated
 * probability by fixed log-odds steps for what sits there:
 *
 * - a known person named in the window around the name: +1.4;
 * - one of the caller's places (city or state, old or new names) in the window: +1.0;
 * - the name written as a party ("appellant", "accused", "respondent" next to it): +0.3;
 * - a relation ("S/o", "W/o", "through") naming someone, when the caller listed known
 *   persons and none of them is that relative: -0.8;
 * - a residence in another state than the caller's, none of the caller's places in it: -1.2;
 * - the other kind of entity written at the name (a company form after a person's name, a
 *   relation or an age after a company's): -2.0.
 *
 * Each kind counts once however often it is seen. The steps are judgement, not fitted: the
 * calibrated model already weighs the record-wide flags; this pass reads what is next to
 * the name, which the flags do not, and can find evidence against as well as for. Reasons
 * quote the record (offsets and words), never the caller's values. Deterministic.
 */
import { TimeSlicer } from '../../scheduling/time-slice.ts';
import { placesOf, stateName } from '../../domain/screening/address.ts';
import { parseParty, type NameTokens } from '../../domain/screening/party-parse.ts';
import { screenedVariants } from '../../domain/screening/prepared-query.ts';
import { findMentions, findPlace, type Mention, textWords, textWordsSteps } from '../../domain/screening/text-mentions.ts';
import type { Steps } from '../../domain/steps.ts';
import type { AdjudicationRequest, AdjudicationVerdict, MatchAdjudicator } from '../../ports/match-adjudicator.ts';

export const LOCAL_ADJUDICATOR_NAME = 'local-context-rules-v1';

export const LOCAL_WEIGHTS = {
  knownPerson: 1.4,
  place: 1.0,
  partyRole: 0.3,
  otherRelative: -0.8,
  otherState: -1.2,
  otherEntityType: -2.0,
} as const;

type FindingKind = keyof typeof LOCAL_WEIGHTS;

const WINDOW_BEFORE = 160;
const WINDOW_AFTER = 240;
const MAX_TEXT_MENTIONS = 12;
const PROBABILITY_FLOOR = 0.02;
const PROBABILITY_CEILING = 0.98;

/** Every state and union territory by the domain's own table (GST numbers 01 to 38). */
const STATE_NAMES = Array.from({ length: 38 }, (_, i) => stateName(String(i + 1))).filter((s): s is string => s !== undefined);

const PARTY_ROLE = /\b(?:appellants?|petitioners?|respondents?|accused|plaintiffs?|defendants?|applicants?|complainants?|assessee)\b/i;
const RELATION = /(s\/o|d\/o|w\/o|son of|daughter of|wife of|\bthr?\b\.?|through)\s+((?:late\s+)?[a-z][a-z. ]{2,60})/i;
const RESIDENCE = /(?:r\/o|resident of|residing at|of village|\bvill\b\.?|district|\bdist\b\.?|,)\s*([a-z][a-z .,-]{2,80})/i;
const COMPANY_FORM_AFTER =
  /^[\s,.]*(?:\(p\)|pvt\b|private\b|ltd\b|limited\b|llp\b|industries\b|enterprises\b|& co\b|and co\b|corporation\b)/i;
const PERSON_AFTER = /^[\s,.]*(?:s\/o|d\/o|w\/o|son of|daughter of|wife of|aged\s+(?:about\s+)?\d)/i;

interface Context {
  readonly where: string;
  readonly source: string;
  readonly start: number;
  readonly end: number;
}

function quote(text: string): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return `"${clean.length > 80 ? `${clean.slice(0, 77)}...` : clean}"`;
}

function statesIn(text: string): string[] {
  const words = textWords(text);
  return STATE_NAMES.filter((s) => findPlace(words, s).length > 0);
}

/** The screened names as the features stage compares them (its caps on what is read included). */
function namesOf(request: AdjudicationRequest): NameTokens[] {
  return screenedVariants(request.query).map((v) => v.tokens);
}

/**
 * The matched party entry, then the judgment text's mentions of a screened name. A
 * judgment may run to half a million characters, read once into words and once per name:
 * in steps (domain/steps.ts), so the caller can give the event loop back between them.
 */
function* contextsSteps(request: AdjudicationRequest, names: readonly NameTokens[]): Steps<Context[]> {
  const contexts: Context[] = [];
  const party = request.matchedParty;
  if (party !== null) {
    const words = textWords(party.text);
    const at = names.flatMap((n) => findMentions(words, n))[0];
    contexts.push({ where: `the party entry ${party.field}`, source: party.text, start: at?.start ?? 0, end: at?.end ?? 0 });
  }
  const text = request.candidate.text;
  if (text !== null) {
    const words = yield* textWordsSteps(text);
    const mentions: Mention[] = [];
    for (const n of names) {
      mentions.push(...findMentions(words, n));
      yield;
    }
    mentions.sort((a, b) => a.start - b.start);
    for (const m of mentions.slice(0, MAX_TEXT_MENTIONS))
      contexts.push({ where: `the judgment text at ${String(m.start)}`, source: text, start: m.start, end: m.end });
  }
  return contexts;
}

export class LocalContextAdjudicator implements MatchAdjudicator {
  readonly name = LOCAL_ADJUDICATOR_NAME;

  async adjudicate(request: AdjudicationRequest): Promise<AdjudicationVerdict> {
    const { query } = request;
    const names = namesOf(request);
    const contexts = await new TimeSlicer().run(contextsSteps(request, names));
    const known = query.knownPersons.flatMap((p) => parseParty(p, 'person').names);
    const places = placesOf(query.address);
    const callerPlaces = [...places.cities, ...places.states];
    const findings = new Map<FindingKind, string>();
    const note = (kind: FindingKind, reason: string) => {
      if (!findings.has(kind)) findings.set(kind, reason);
    };

    for (const ctx of contexts) {
      const named = ctx.end > ctx.start ? quote(ctx.source.slice(ctx.start, ctx.end)) : 'the party';
      const before = ctx.source.slice(Math.max(0, ctx.start - WINDOW_BEFORE), ctx.start);
      const after = ctx.source.slice(ctx.end, ctx.end + WINDOW_AFTER);
      const window = `${before} ${after}`;
      const windowWords = textWords(window);

      for (const person of known) {
        const hit = findMentions(windowWords, person)[0];
        if (hit) note('knownPerson', `${ctx.where} names ${quote(window.slice(hit.start, hit.end))}, a known person, next to ${named}.`);
      }
      const relation = RELATION.exec(after.slice(0, 80));
      if (relation && known.length > 0) {
        const relative = relation[2] ?? '';
        const relativeWords = textWords(relative);
        if (!known.some((person) => findMentions(relativeWords, person).length > 0))
          note('otherRelative', `${ctx.where} gives ${named} as ${relation[1] ?? ''} ${quote(relative)}, not one of the known persons.`);
      }
      const place = callerPlaces.find((p) => findPlace(windowWords, p).length > 0);
      if (place !== undefined) note('place', `${ctx.where} has ${quote(place)}, one of the screened party's places, next to ${named}.`);
      const residence = RESIDENCE.exec(after.slice(0, 120))?.[1];
      const otherStates = residence === undefined ? [] : statesIn(residence).filter((s) => !places.states.includes(s));
      if (place === undefined && places.states.length > 0 && otherStates.length > 0)
        note('otherState', `${ctx.where} gives a residence in ${quote(otherStates[0] ?? '')} for ${named}.`);
      const role = PARTY_ROLE.exec(`${before.slice(-80)} ${after.slice(0, 80)}`);
      if (role) note('partyRole', `${ctx.where} writes ${named} as a party (${quote(role[0])}).`);
      if (query.entityType === 'person' && COMPANY_FORM_AFTER.test(after))
        note('otherEntityType', `${ctx.where} writes a company form after ${named}: ${quote(after.slice(0, 30))}.`);
      if (query.entityType === 'company' && PERSON_AFTER.test(after))
        note('otherEntityType', `${ctx.where} writes ${named} as a person: ${quote(after.slice(0, 30))}.`);
    }

    const p = Math.min(1 - 1e-6, Math.max(1e-6, request.probability));
    const shift = [...findings.keys()].reduce((sum, kind) => sum + LOCAL_WEIGHTS[kind], 0);
    const revised = 1 / (1 + Math.exp(-(Math.log(p / (1 - p)) + shift)));
    const probability = Math.min(PROBABILITY_CEILING, Math.max(PROBABILITY_FLOOR, revised));
    const textMentions = contexts.filter((c) => c.where.startsWith('the judgment text')).length;
    const read =
      request.candidate.text === null
        ? 'Read the matched party entry; no judgment text is held for this case.'
        : `Read the matched party entry and ${String(textMentions)} mention(s) of the name in the judgment text.`;
    const reasons =
      findings.size === 0
        ? [
            `${read} Nothing next to the name bears on identity (no relative, residence, associate or role), so the probability is unchanged.`,
          ]
        : [
            read,
            ...[...findings].map(
              ([kind, reason]) => `${reason} (${LOCAL_WEIGHTS[kind] > 0 ? '+' : ''}${String(LOCAL_WEIGHTS[kind])} log-odds)`,
            ),
          ];
    return { probability: findings.size === 0 ? request.probability : Math.floor(probability * 1000) / 1000, reasons };
  }
}
