/**
 * IPv4 and IPv6 addresses and CIDR ranges, parsed and matched without IO. IPv4-mapped IPv6
 * addresses (::ffff:a.b.c.d, as Node reports IPv4 clients on dual-stack sockets) match
 * IPv4 ranges.
 */
export interface Cidr {
  readonly version: 4 | 6;
  readonly bits: bigint;
  readonly prefix: number;
}

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255 || (part.length > 1 && part.startsWith('0'))) return undefined;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseIpv6(text: string): bigint | undefined {
  let head = text;
  let tailV4: bigint | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.')) {
    tailV4 = parseIpv4(text.slice(lastColon + 1));
    if (tailV4 === undefined) return undefined;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const left = halves[0] ? halves[0].split(':') : [];
  const right = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - left.length - right.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return undefined;
  const groups = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  return tailV4 === undefined ? value : (value & ~0xffffffffn) | tailV4;
}

const V4_MAPPED_PREFIX = 0xffffn << 32n;

export interface Address {
  readonly version: 4 | 6;
  readonly bits: bigint;
}

/**
 * The text before an IPv6 zone ("fe80::1%eth0" → "fe80::1"), cut by hand: `/%.*$/` would
 * scan on from every '%' of a long run. A line break after the '%' (which `.` does not
 * cross) keeps the text whole, and no address holds a line break.
 */
function withoutZone(text: string): string {
  const zone = text.indexOf('%');
  return zone < 0 || /[\n\r\u2028\u2029]/.test(text.slice(zone)) ? text : text.slice(0, zone);
}

export function parseAddress(text: string): Address | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { version: 4, bits: v4 };
  const v6 = parseIpv6(withoutZone(text.replace(/^\[|\]$/g, '')));
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === V4_MAPPED_PREFIX >> 32n) return { version: 4, bits: v6 & 0xffffffffn };
  return { version: 6, bits: v6 };
}

export function parseCidr(text: string): Cidr | undefined {
  const [addressText, prefixText, extra] = text.trim().split('/');
  if (addressText === undefined || extra !== undefined) return undefined;
  const address = parseAddress(addressText);
  if (!address) return undefined;
  const width = address.version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (prefix > width) return undefined;
  return { version: address.version, bits: address.bits, prefix };
}

export function cidrContains(range: Cidr, address: Address): boolean {
  if (range.version !== address.version) return false;
  const width = BigInt(range.version === 4 ? 32 : 128);
  const shift = width - BigInt(range.prefix);
  return range.bits >> shift === address.bits >> shift;
}

/** True when the address falls in any range; an unparseable address matches nothing. */
export function allowedBy(ranges: readonly string[], addressText: string): boolean {
  const address = parseAddress(addressText);
  if (!address) return false;
  return ranges.some((r) => {
    const range = parseCidr(r);
    return range !== undefined && cidrContains(range, address);
  });
}
