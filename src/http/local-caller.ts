/**
 * Whether a call comes from this machine: its socket is loopback and no proxy stands
 * between (none configured, no forwarding header), since a reverse proxy on the same host
 * would otherwise hand every outside request a loopback socket. Shared by the ops routes
 * that admit local callers without a token (metrics, the embedded Temporal UI's codec calls).
 */
import type { Context } from 'hono';
import { allowedBy } from '../domain/access/cidr.ts';
import type { AppEnv } from './env.ts';

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

export function fromThisMachine(c: Context<AppEnv>, socketAddress: (c: Context<AppEnv>) => string, behindProxy: boolean): boolean {
  const relayed = behindProxy || c.req.header('X-Forwarded-For') !== undefined || c.req.header('Forwarded') !== undefined;
  return !relayed && allowedBy(LOOPBACK, socketAddress(c));
}
