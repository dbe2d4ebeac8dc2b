/**
 * RemoteDocuments over fetch: follows at most three redirects by hand so each hop is
 * checked against the allowlist, stops reading past a size cap, and accepts only a body
 * that starts like a PDF. Timeouts, resets and 5xx answers are retryable failures; a 4xx
 * or a body that is not a PDF is permanent.
 */
import { hostAllowed } from '../../domain/analysis-request/remote-fetch-policy.ts';
import { RemoteFetchFailedError, RemoteFetchRefusedError, type RemoteDocuments } from '../../ports/remote-documents.ts';

const MAX_REDIRECTS = 3;

export class HttpRemoteDocuments implements RemoteDocuments {
  constructor(private readonly options: { readonly allowlist: readonly string[]; readonly timeoutMs: number; readonly maxBytes: number }) {}

  async fetchPdf(url: string, signal?: AbortSignal): Promise<Uint8Array> {
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      if (!hostAllowed(current, this.options.allowlist))
        throw new RemoteFetchRefusedError(`host of ${new URL(current).host} is not allow-listed`);
      let response: Response;
      try {
        response = await fetch(current, { redirect: 'manual', signal: combined, headers: { accept: 'application/pdf' } });
      } catch (error) {
        throw new RemoteFetchFailedError(`fetching the document failed: ${error instanceof Error ? error.message : String(error)}`, false);
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        current = new URL(location, current).toString();
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new RemoteFetchFailedError(`the court site answered ${String(response.status)}`, response.status < 500);
      }
      const bytes = await this.#read(response);
      if (new TextDecoder().decode(bytes.subarray(0, 5)) !== '%PDF-') throw new RemoteFetchFailedError('the document is not a PDF', true);
      return bytes;
    }
    throw new RemoteFetchFailedError('too many redirects', true);
  }

  async #read(response: Response): Promise<Uint8Array> {
    const reader = response.body?.getReader();
    if (!reader) return new Uint8Array();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > this.options.maxBytes) {
        await reader.cancel();
        throw new RemoteFetchFailedError(`the document is larger than ${String(this.options.maxBytes)} bytes`, true);
      }
      chunks.push(value);
    }
    const out = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }
}
