/**
 * The client's address: the socket's, or, when the socket belongs to a trusted proxy, the
 * nearest untrusted hop of X-Forwarded-For (walking from the right, so a client cannot
 * forge its way past the proxy by sending its own header).
 */
import type { Context } from 'hono';
import { allowedBy } from '../domain/access/cidr.ts';
import type { AppEnv } from './env.ts';

export function clientAddressResolver(
  socketAddress: (c: Context<AppEnv>) => string,
  trustedProxies: readonly string[],
): (c: Context<AppEnv>) => string {
  if (trustedProxies.length === 0) return socketAddress;
  return (c) => {
    const socket = socketAddress(c);
    if (!allowedBy(trustedProxies, socket)) return socket;
    const hops = (c.req.header('X-Forwarded-For') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const hop = hops[i]!;
      if (!allowedBy(trustedProxies, hop)) return hop;
    }
    return hops[0] ?? socket;
  };
}
