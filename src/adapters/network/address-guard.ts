/**
 * The connect-time half of the outbound address policy (domain/network/address-class.ts),
 * shared by webhook deliveries and remote document fetches. It sits in the socket's own DNS
 * lookup: every address the name resolves to is checked, and the connection can only go to
 * one of those, so a name that answers a public address to a check and a private one to the
 * connect (DNS rebinding) cannot slip through. Node skips the lookup for a literal IP host,
 * so `checkHost` vets literals before the request is made.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressAdmitted, classifyAddress, type AddressPolicy } from '../../domain/network/address-class.ts';

/** Every address a host name resolves to. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

export interface AddressGuardOptions {
  readonly policy: AddressPolicy;
  readonly resolver: Resolver;
  /** The error a refusal raises: each caller's own, so its outcome reads as refused, not failed. */
  readonly refuse: (message: string) => Error;
}

export class AddressGuard {
  constructor(private readonly options: AddressGuardOptions) {}

  /** Throws the refusal when the URL's host is a literal address outside the policy (names are vetted by `lookup`). */
  checkHost(url: URL): void {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (classifyAddress(host) !== 'invalid' && !addressAdmitted(host, this.options.policy)) {
      throw this.options.refuse('the host is an address this service may not reach');
    }
  }

  /** For http(s).request's `lookup`: answers only when every address of the name is admitted. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.options.resolver(hostname).then(
      (addresses) => {
        const usable = addresses.filter((a) => !options.family || a.family === options.family);
        if (usable.length === 0 || addresses.some((a) => !addressAdmitted(a.address, this.options.policy))) {
          callback(this.options.refuse(`${hostname} resolves to an address this service may not reach`), '', 0);
          return;
        }
        // Node's connect asks for every address (happy eyeballs) or for one.
        if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        else callback(null, (usable[0] as LookupAddress).address, (usable[0] as LookupAddress).family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}
