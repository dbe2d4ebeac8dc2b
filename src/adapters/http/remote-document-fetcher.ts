/**
 * RemoteDocuments over node:http(s): follows at most three redirects by hand so each hop is
 * checked against the allowlist and the address guard (adapters/network/address-guard.ts: a literal host
 * before the request, every address a name resolves to at the socket's lookup), stops
 * reading past a size cap, and accepts only a body that starts like a PDF. Timeouts, resets
 * and 5xx answers are retryable failures; a 4xx or a body that is not a PDF is permanent.
 * No connection is pooled, so none outlives the check it was made under.
 */
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { hostAllowed } from '../../domain/analysis-request/remote-fetch-policy.ts';
import type { AddressPolicy } from '../../domain/network/address-class.ts';
import { RemoteFetchFailedError, RemoteFetchRefusedError, type RemoteDocuments } from '../../ports/remote-documents.ts';
import { AddressGuard, systemResolver, type Resolver } from '../network/address-guard.ts';

const MAX_REDIRECTS = 3;

export interface HttpRemoteDocumentsOptions {
  readonly allowlist: readonly string[];
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** `public-or-loopback` only in the development setting (the service's own storage on this machine). */
  readonly addresses: AddressPolicy;
  /** Name resolution; the system's unless a test names another. */
  readonly resolver?: Resolver;
}

/** The kind of a transport failure (its code), never the text a peer or resolver put in it. */
function kindOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error';
}

export class HttpRemoteDocuments implements RemoteDocuments {
  readonly #guard: AddressGuard;

  constructor(private readonly options: HttpRemoteDocumentsOptions) {
    this.#guard = new AddressGuard({
      policy: options.addresses,
      resolver: options.resolver ?? systemResolver,
      refuse: (message) => new RemoteFetchRefusedError(message),
    });
  }

  async fetchPdf(url: string, signal?: AbortSignal): Promise<Uint8Array> {
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      if (!hostAllowed(current, this.options.allowlist))
        throw new RemoteFetchRefusedError(`host of ${new URL(current).host} is not allow-listed`);
      const target = new URL(current);
      this.#guard.checkHost(target);
      const response = await this.#get(target, combined);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.destroy();
        current = new URL(location, current).toString();
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw new RemoteFetchFailedError(`the court site answered ${String(status)}`, status < 500);
      }
      const bytes = await this.#read(response);
      if (new TextDecoder().decode(bytes.subarray(0, 5)) !== '%PDF-') throw new RemoteFetchFailedError('the document is not a PDF', true);
      return bytes;
    }
    throw new RemoteFetchFailedError('too many redirects', true);
  }

  #get(target: URL, signal: AbortSignal): Promise<IncomingMessage> {
    const get = target.protocol === 'https:' ? httpsGet : httpGet;
    return new Promise((resolve, reject) => {
      const request = get(target, { agent: false, lookup: this.#guard.lookup, signal, headers: { accept: 'application/pdf' } }, resolve);
      request.on('error', (error) =>
        reject(
          error instanceof RemoteFetchRefusedError
            ? error
            : new RemoteFetchFailedError(`fetching the document failed: ${kindOf(error)}`, false),
        ),
      );
    });
  }

  async #read(response: IncomingMessage): Promise<Uint8Array> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        size += chunk.byteLength;
        if (size > this.options.maxBytes) {
          response.destroy();
          throw new RemoteFetchFailedError(`the document is larger than ${String(this.options.maxBytes)} bytes`, true);
        }
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof RemoteFetchFailedError) throw error;
      throw new RemoteFetchFailedError(`reading the document failed: ${kindOf(error)}`, false);
    }
    return new Uint8Array(Buffer.concat(chunks, size));
  }
}
