/**
 * WebhookSender over node:http(s). Where a delivery may connect is the address guard's
 * (adapters/network/address-guard.ts): literal hosts are vetted before the request and names at
 * the socket's own lookup, every address they resolve to. Redirects are answers, never
 * followed. Every answer is bounded: a short timeout on establishing the connection (an
 * address that never completes a handshake fails in seconds, freeing the attempt's slot),
 * a timeout on the whole exchange and a cap on the bytes
 * read (the body is discarded: only the status matters, and a receiver's text is not ours
 * to keep). No connection is pooled, so none outlives the check it was made under.
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressPolicy } from '../../domain/network/address-class.ts';
import { WebhookAddressRefusedError, type WebhookSender } from '../../ports/webhooks.ts';
import { AddressGuard, systemResolver, type Resolver } from '../network/address-guard.ts';

export interface HttpWebhookSenderOptions {
  readonly timeoutMs: number;
  /** Until the connection is established (TLS included for https). */
  readonly connectTimeoutMs: number;
  readonly maxResponseBytes: number;
  /** `public-or-loopback` only in the development setting (a receiver on this machine). */
  readonly addresses: AddressPolicy;
  readonly userAgent: string;
  /** Name resolution; the system's unless a test names another. */
  readonly resolver?: Resolver;
}

export class HttpWebhookSender implements WebhookSender {
  readonly #guard: AddressGuard;

  constructor(private readonly options: HttpWebhookSenderOptions) {
    this.#guard = new AddressGuard({
      policy: options.addresses,
      resolver: options.resolver ?? systemResolver,
      refuse: (message) => new WebhookAddressRefusedError(message),
    });
  }

  async post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<{ status: number }> {
    const target = new URL(url);
    this.#guard.checkHost(target);
    const payload = Buffer.from(body, 'utf8');
    const options: RequestOptions = {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'user-agent': this.options.userAgent,
      },
      agent: false,
      lookup: this.#guard.lookup,
      signal: AbortSignal.timeout(this.options.timeoutMs),
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(target, options, (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > this.options.maxResponseBytes) response.destroy(new Error('the receiver answered more than the response cap'));
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.once('socket', (socket) => {
        const timer = setTimeout(
          () => request.destroy(Object.assign(new Error('the connection was not established in time'), { code: 'ECONNECT_TIMEOUT' })),
          this.options.connectTimeoutMs,
        );
        socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      });
      request.end(payload);
    });
  }
}
