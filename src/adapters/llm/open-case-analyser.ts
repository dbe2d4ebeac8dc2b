/** Chooses the CaseAnalyser from config: the OpenAI-compatible model at LLM_URL, else the local extractive analyser. */
import type { Config } from '../../config.ts';
import type { CaseAnalyser } from '../../ports/case-analyser.ts';
import { LocalExtractiveAnalyser } from './local-extractive-analyser.ts';
import { OpenAiCaseAnalyser } from './openai-case-analyser.ts';
import { OpenAiChat } from './openai-chat.ts';

/** Below the 120 s activity timeout, so a slow model surfaces as LlmTimeoutError rather than an activity timeout. */
const LLM_TIMEOUT_MS = 110_000;

export function openCaseAnalyser(config: Pick<Config, 'LLM_URL' | 'LLM_MODEL' | 'LLM_API_KEY'>): CaseAnalyser {
  if (!config.LLM_URL || !config.LLM_MODEL) return new LocalExtractiveAnalyser();
  return new OpenAiCaseAnalyser(
    new OpenAiChat({ baseUrl: config.LLM_URL, model: config.LLM_MODEL, apiKey: config.LLM_API_KEY, timeoutMs: LLM_TIMEOUT_MS }),
  );
}
