/** Chooses the MatchAdjudicator from config: the OpenAI-compatible model at LLM_URL, else the local context reader. */
import type { Config } from '../../config.ts';
import type { MatchAdjudicator } from '../../ports/match-adjudicator.ts';
import { LocalContextAdjudicator } from './local-adjudicator.ts';
import { OpenAiAdjudicator } from './openai-adjudicator.ts';
import { OpenAiChat } from './openai-chat.ts';

/** A litigation check waits for adjudication synchronously: a slow model must not hold the caller long. */
const ADJUDICATION_TIMEOUT_MS = 20_000;

export function openAdjudicator(config: Pick<Config, 'LLM_URL' | 'LLM_MODEL' | 'LLM_API_KEY'>): MatchAdjudicator {
  if (!config.LLM_URL || !config.LLM_MODEL) return new LocalContextAdjudicator();
  return new OpenAiAdjudicator(
    new OpenAiChat({ baseUrl: config.LLM_URL, model: config.LLM_MODEL, apiKey: config.LLM_API_KEY, timeoutMs: ADJUDICATION_TIMEOUT_MS }),
  );
}
