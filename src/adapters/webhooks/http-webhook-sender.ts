/**
 * WebhookSender over node:http(s). The SSRF guard sits in the socket's own DNS lookup: the
 * addresses checked are the ones connected to, so a name that resolves to a public address
 * for a check and a private one for the connection (DNS rebinding) cannot slip through.
 * Literal IP hosts skip the lookup, so they are checked before the request. Every answer
 * is bounded: a timeout on the whole exchange and a cap on the bytes read (the body is
 * discarded: only the status matters, and a receiver's text is not ours to keep).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from '../../domain/webhook/webhook-endpoints.ts';
import { WebhookAddressRefusedError, type WebhookSender } from '../../ports/webhooks.ts';

export interface HttpWebhookSenderOptions {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** Development only: deliver to loopback and private addresses (a receiver on this machine). */
  readonly allowNonPublicAddresses: boolean;
  readonly userAgent: string;
}

/** A lookup that answers only public addresses, and fails when the name has any other. */
function guardedLookup(allowNonPublic: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => !allowNonPublic && !isPublicAddress(a.address));
      if (refused || addresses.length === 0) {
        return callback(new WebhookAddressRefusedError(`${hostname} resolves to an address deliveries may not reach`), '', 0);
      }
      // Node's connect asks for every address (happy eyeballs) or for one.
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

export class HttpWebhookSender implements WebhookSender {
  constructor(private readonly options: HttpWebhookSenderOptions) {}

  post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<{ status: number }> {
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !this.options.allowNonPublicAddresses && !isPublicAddress(host)) {
      return Promise.reject(new WebhookAddressRefusedError('the endpoint is an address deliveries may not reach'));
    }
    const payload = Buffer.from(body, 'utf8');
    const options: RequestOptions = {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'user-agent': this.options.userAgent,
      },
      lookup: guardedLookup(this.options.allowNonPublicAddresses),
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
      request.end(payload);
    });
  }
}
