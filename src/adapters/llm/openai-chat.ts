/**
 * A small client for any service speaking the OpenAI chat-completions API (OpenAI, Azure
 * OpenAI, vLLM, Ollama, LiteLLM ...) that returns JSON under a JSON schema:
 * `response_format: {type: 'json_schema', json_schema: {name, schema, strict: true}}`.
 * One request per call and no retries: the caller is a Temporal activity, whose retry
 * policy decides what is retried and when. Failures are typed so that policy can tell
 * them apart: LlmTimeoutError (no answer within the timeout), LlmUnavailableError
 * (unreachable, 408, 429 or 5xx: worth retrying), LlmRejectedError (any other 4xx: a bad
 * key, an unknown model, a request too large; retrying will not help) and
 * LlmBadOutputError (an answer that is not a completion, was cut off, refused, or whose
 * content is not JSON). The caller's abort signal cancels the request as itself, not as a
 * timeout.
 */
import { z } from 'zod';

export interface OpenAiChatOptions {
  /** Base URL, e.g. https://api.openai.com/v1; "/chat/completions" is appended. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string | undefined;
  /** For the whole request, body included. */
  readonly timeoutMs?: number;
}

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface JsonSchemaFormat {
  /** Letters, digits, '_' and '-' only (the API's rule). */
  readonly name: string;
  readonly schema: Readonly<Record<string, unknown>>;
}

export interface ChatJsonResult {
  /** The parsed JSON content of the first choice. */
  readonly json: unknown;
  /** The model id the service says answered (may be more specific than the one asked for). */
  readonly model: string | null;
}

export class LlmTimeoutError extends Error {
  override readonly name = 'LlmTimeoutError';
}
export class LlmUnavailableError extends Error {
  override readonly name = 'LlmUnavailableError';
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}
export class LlmRejectedError extends Error {
  override readonly name = 'LlmRejectedError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
export class LlmBadOutputError extends Error {
  override readonly name = 'LlmBadOutputError';
}

const Completion = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullable().optional(),
        message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }),
      }),
    )
    .min(1),
});

const DEFAULT_TIMEOUT_MS = 120_000;
/** How much of an error body is quoted in the error message. */
const QUOTED = 300;

export class OpenAiChat {
  readonly model: string;
  readonly #endpoint: string;

  constructor(private readonly options: OpenAiChatOptions) {
    this.model = options.model;
    this.#endpoint = `${options.baseUrl.replace(/(?<!\/)\/+$/, '')}/chat/completions`;
  }

  async completeJson(messages: readonly ChatMessage[], format: JsonSchemaFormat, signal?: AbortSignal): Promise<ChatJsonResult> {
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const body = JSON.stringify({
      model: this.model,
      messages,
      response_format: { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: true } },
    });
    let status: number;
    let text: string;
    try {
      const response = await fetch(this.#endpoint, {
        method: 'POST',
        headers,
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      signal?.throwIfAborted();
      if (timeout.aborted) throw new LlmTimeoutError(`chat completions at ${this.#endpoint} gave no answer within ${String(timeoutMs)} ms`);
      throw new LlmUnavailableError(
        `chat completions at ${this.#endpoint} unreachable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (status === 408 || status === 429 || status >= 500) {
      throw new LlmUnavailableError(
        `chat completions at ${this.#endpoint} answered HTTP ${String(status)}: ${text.slice(0, QUOTED)}`,
        status,
      );
    }
    if (status < 200 || status >= 300) {
      throw new LlmRejectedError(
        `chat completions at ${this.#endpoint} refused the request, HTTP ${String(status)}: ${text.slice(0, QUOTED)}`,
        status,
      );
    }
    return this.#read(text);
  }

  #read(text: string): ChatJsonResult {
    const completion = Completion.safeParse(parseJson(text));
    if (!completion.success) throw new LlmBadOutputError('chat completions answered with something other than a chat completion');
    const choice = completion.data.choices[0]!;
    if (choice.message.refusal) throw new LlmBadOutputError(`the model refused: ${choice.message.refusal.slice(0, QUOTED)}`);
    if (choice.finish_reason === 'length') throw new LlmBadOutputError('the model ran out of output tokens; its JSON is cut off');
    const content = choice.message.content ?? '';
    const json = parseJson(content);
    if (json === undefined) throw new LlmBadOutputError(`the model's content is not JSON: ${content.slice(0, QUOTED)}`);
    return { json, model: completion.data.model ?? null };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
