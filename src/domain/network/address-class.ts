/**
 * Which addresses a server-side request (a webhook delivery, a remote document fetch) may
 * connect to, decided without IO. One classifier for both, so the two cannot disagree on
 * what is public. IPv4-mapped IPv6 (::ffff:a.b.c.d) is classed as its IPv4 address; in IPv6
 * only global unicast (2000::/3) can be public, so forms that embed or translate an IPv4
 * address (IPv4-compatible, NAT64, 6to4, Teredo) are reserved rather than decoded.
 */
import { cidrContains, parseAddress, parseCidr, type Cidr } from '../access/cidr.ts';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'unspecified'
  | 'private'
  /** Carrier-grade NAT, 100.64.0.0/10: a provider's internal network. */
  | 'shared'
  /** 169.254.0.0/16 and fe80::/10: cloud metadata services answer here. */
  | 'link-local'
  | 'multicast'
  | 'reserved'
  | 'invalid';

/** First match wins, so a narrower range sits before the one it lies in. */
const RANGES: readonly (readonly [string, AddressClass])[] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'private'],
  ['fc00::/7', 'private'],
  ['ff00::/8', 'multicast'],
  ['2001::/23', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['2002::/16', 'reserved'],
  ['3fff::/20', 'reserved'],
  ['2000::/3', 'public'],
  ['::/0', 'reserved'],
];

const PARSED: readonly (readonly [Cidr, AddressClass])[] = RANGES.map(([text, kind]) => {
  const range = parseCidr(text);
  if (!range) throw new Error(`bad range ${text}`);
  return [range, kind] as const;
});

/** The class of an IP address in text (brackets and an IPv6 zone allowed); a host name is 'invalid'. */
export function classifyAddress(text: string): AddressClass {
  const address = parseAddress(text);
  if (!address) return 'invalid';
  for (const [range, kind] of PARSED) if (cidrContains(range, address)) return kind;
  return 'public';
}

/**
 * Where outbound requests may go. `public-or-loopback` is the development setting (a
 * receiver on the developer's own machine); no setting reaches private or link-local ranges.
 */
export type AddressPolicy = 'public' | 'public-or-loopback';

export function addressAdmitted(text: string, policy: AddressPolicy): boolean {
  const kind = classifyAddress(text);
  return kind === 'public' || (policy === 'public-or-loopback' && kind === 'loopback');
}

/** Whether a listen host (HOST) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || classifyAddress(name) === 'loopback';
}
