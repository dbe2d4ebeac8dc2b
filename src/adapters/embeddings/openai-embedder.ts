/**
 * The production Embedder: any service speaking the OpenAI embeddings API (POST
 * {base}/embeddings with `model` and an `input` array, Bearer key; OpenAI itself, Azure
 * and self-hosted servers such as vLLM or text-embeddings-inference). Inputs go in batches;
 * a 429 or 5xx answer, or a connection that fails, is retried with exponential backoff
 * (honouring Retry-After) before the call gives up with EmbedderUnavailableError. Each
 * request has its own timeout, which surfaces as EmbedderTimeoutError without a retry: a
 * search waiting on it has already spent its latency budget. Other 4xx answers (a bad key,
 * an unknown model) and malformed bodies are not retried: they will not get better.
 */
import { z } from 'zod';
import { EmbedderTimeoutError, EmbedderUnavailableError, type Embedder } from '../../ports/embedder.ts';

export interface OpenAiEmbedderOptions {
  /** Base URL, e.g. https://api.openai.com/v1; "/embeddings" is appended. */
  readonly url: string;
  readonly model: string;
  /** The length of the vectors the model returns; a response of any other length is refused. */
  readonly dimensions: number;
  readonly apiKey?: string | undefined;
  readonly batchSize?: number;
  readonly timeoutMs?: number;
  /** Retries after the first attempt, on 429, 5xx and connection failures. */
  readonly retries?: number;
  readonly backoffMs?: number;
}

const EmbeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })),
});

const RETRY_AFTER_CAP_MS = 10_000;

interface Answer {
  readonly status: number;
  /** The body of a 2xx answer; null otherwise. */
  readonly body: string | null;
  readonly retryAfterMs: number | null;
}

function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}

function retryAfterMs(response: Response): number | null {
  const header = response.headers.get('retry-after');
  const seconds = header === null ? NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, RETRY_AFTER_CAP_MS) : null;
}

export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly #endpoint: string;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.#endpoint = `${options.url.replace(/(?<!\/)\/+$/, '')}/embeddings`;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const size = this.options.batchSize ?? 64;
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += size) vectors.push(...(await this.#batch(texts.slice(i, i + size), signal)));
    return vectors;
  }

  async #batch(input: readonly string[], signal: AbortSignal | undefined): Promise<number[][]> {
    const retries = this.options.retries ?? 3;
    const backoff = this.options.backoffMs ?? 250;
    let failure = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(backoff * 2 ** (attempt - 1) * (1 + Math.random() / 2), signal);
      const response = await this.#post(input, signal).catch((error: unknown) => {
        if (error instanceof EmbedderTimeoutError || signal?.aborted) throw error;
        failure = `unreachable: ${error instanceof Error ? error.message : String(error)}`;
        return null;
      });
      if (response === null) continue;
      if (response.body !== null) return this.#read(response.body, input.length);
      failure = `HTTP ${String(response.status)}`;
      if (!retryable(response.status)) break;
      const wait = response.retryAfterMs;
      if (wait !== null && attempt < retries) await sleep(wait, signal);
    }
    throw new EmbedderUnavailableError(`embeddings service at ${this.#endpoint}: ${failure}`);
  }

  /** One request; the body is read (under the same timeout) only when the answer is 2xx. */
  async #post(input: readonly string[], signal: AbortSignal | undefined): Promise<Answer> {
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    try {
      const response = await fetch(this.#endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (response.ok) return { status: response.status, body: await response.text(), retryAfterMs: null };
      await response.body?.cancel();
      return { status: response.status, body: null, retryAfterMs: retryAfterMs(response) };
    } catch (error) {
      if (timeout.aborted && !signal?.aborted)
        throw new EmbedderTimeoutError(`embeddings service gave no answer within ${String(timeoutMs)} ms`);
      throw error;
    }
  }

  #read(text: string, count: number): number[][] {
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: reported as malformed below.
    }
    const parsed = EmbeddingsResponse.safeParse(body);
    if (!parsed.success) throw new EmbedderUnavailableError('embeddings service answered with a malformed body');
    const byIndex = new Map(parsed.data.data.map((d) => [d.index, d.embedding]));
    const vectors: number[][] = [];
    for (let i = 0; i < count; i++) {
      const vector = byIndex.get(i);
      if (vector?.length !== this.dimensions) {
        throw new EmbedderUnavailableError(
          `embeddings service answered ${String(parsed.data.data.length)} vectors for ${String(count)} inputs, or vectors not of ${String(this.dimensions)} dimensions`,
        );
      }
      vectors.push(vector);
    }
    return vectors;
  }
}
