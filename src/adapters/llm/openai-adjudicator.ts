/**
 * The production adjudicator: a model behind the OpenAI chat-completions API, asked under
 * a strict JSON schema whether the candidate case's party is the screened entity. It is
 * shown the screened names and the caller's corroborating details (that is the point of
 * the pass), the matched party entry, the signals the features stage found, and windows of
 * the judgment text around each mention of the party's name (never the whole judgment).
 * Its answer is validated: a probability in [0, 1] and at least one reason, else the call
 * fails (AdjudicatorUnavailableError) and the candidate keeps its calibrated probability.
 * The rules still apply afterwards, so a person is never confirmed by the model alone.
 *
 * Nothing about a request reaches a log or an error message: failures are reported by
 * class only, since the client's errors may quote a response that echoes the prompt.
 */
import { z } from 'zod';
import { parseScreenedName } from '../../domain/screening/names.ts';
import { findMentions, textWords } from '../../domain/screening/text-mentions.ts';
import {
  AdjudicatorUnavailableError,
  type AdjudicationRequest,
  type AdjudicationVerdict,
  type MatchAdjudicator,
} from '../../ports/match-adjudicator.ts';
import type { ChatMessage, OpenAiChat } from './openai-chat.ts';

const WINDOW = 400;
const MAX_WINDOWS = 6;
const MAX_REASONS = 6;

const Answer = z.strictObject({
  probability: z.number().min(0).max(1).describe('Probability, 0 to 1, that the party in this case is the screened entity.'),
  reasons: z
    .array(z.string())
    .min(1)
    .describe('Short reasons, each pointing at words of the record (quote them) that support or weigh against the match.'),
});

const { $schema: _ignored, ...SCHEMA } = z.toJSONSchema(Answer, { target: 'draft-7' });

const SYSTEM = [
  'You help a compliance officer decide whether a court case involves a specific person or company.',
  'You are given the screened entity (names, type and any corroborating details the officer supplied) and one candidate case: its party entry that matched the name, the matching signals found by rules, and excerpts of the judgment around the name.',
  'Judge only from the record. Relatives (S/o, D/o, W/o), addresses, ages, occupations, roles and identifiers next to the name are the evidence; a common name alone is weak evidence.',
  'Answer with a calibrated probability: 0.5 when the record neither supports nor contradicts identity beyond the name, higher only for evidence in the record, lower for evidence against.',
].join(' ');

function excerpts(request: AdjudicationRequest): string[] {
  const text = request.candidate.text;
  if (text === null) return [];
  const words = textWords(text);
  const names = [request.query.name, ...request.query.aliases].flatMap((n) => [...parseScreenedName(n, request.query.entityType)]);
  const mentions = names.flatMap((n) => findMentions(words, n)).sort((a, b) => a.start - b.start);
  const out: string[] = [];
  let reach = -1;
  for (const m of mentions) {
    if (out.length >= MAX_WINDOWS) break;
    if (m.start < reach) continue;
    const from = Math.max(0, m.start - WINDOW);
    reach = m.end + WINDOW;
    out.push(text.slice(from, reach).replace(/\s+/g, ' '));
  }
  return out;
}

export function adjudicationPrompt(request: AdjudicationRequest): ChatMessage[] {
  const { query, candidate } = request;
  const screened = {
    entityType: query.entityType,
    name: query.name,
    aliases: query.aliases,
    identifiers: query.identifiers,
    address: query.address ?? null,
    knownPersons: query.knownPersons,
  };
  const record = {
    caseNumber: candidate.caseNumber,
    court: candidate.courtName,
    title: candidate.title,
    decisionDate: candidate.decisionDate,
    petitioners: candidate.petitioners,
    respondents: candidate.respondents,
    matchedParty: request.matchedParty,
    signals: request.signals.map((s) => ({ kind: s.kind, detail: s.detail, text: s.spans.map((sp) => sp.text) })),
    excerpts: excerpts(request),
    probabilityFromNameAndFlags: Math.round(request.probability * 1000) / 1000,
  };
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Screened entity:\n${JSON.stringify(screened)}\n\nCandidate case:\n${JSON.stringify(record)}` },
  ];
}

export class OpenAiAdjudicator implements MatchAdjudicator {
  readonly name: string;

  constructor(private readonly chat: OpenAiChat) {
    this.name = chat.model;
  }

  async adjudicate(request: AdjudicationRequest, signal?: AbortSignal): Promise<AdjudicationVerdict> {
    let json: unknown;
    try {
      json = (await this.chat.completeJson(adjudicationPrompt(request), { name: 'match_adjudication', schema: SCHEMA }, signal)).json;
    } catch (error) {
      throw new AdjudicatorUnavailableError(
        `the adjudication model did not answer usefully (${error instanceof Error ? error.name : 'unknown'})`,
      );
    }
    const answer = Answer.safeParse(json);
    if (!answer.success) throw new AdjudicatorUnavailableError('the adjudication model answered outside its schema');
    return {
      probability: answer.data.probability,
      reasons: answer.data.reasons.slice(0, MAX_REASONS),
    };
  }
}
