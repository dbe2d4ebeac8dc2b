/** Client address: the socket's, unless the socket is a trusted proxy; forged hops are skipped. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Context } from 'hono';
import { clientAddressResolver } from '../../src/http/client-address.ts';
import type { AppEnv } from '../../src/http/env.ts';

function context(socket: string, forwardedFor?: string): { c: Context<AppEnv>; socket: string } {
  const c = { req: { header: (name: string) => (name === 'X-Forwarded-For' ? forwardedFor : undefined) } } as unknown as Context<AppEnv>;
  return { c, socket };
}

describe('client address', () => {
  it('uses the socket address when no proxy is trusted, whatever the headers say', () => {
    const { c, socket } = context('198.51.100.7', '203.0.113.9');
    assert.equal(clientAddressResolver(() => socket, [])(c), '198.51.100.7');
  });

  it('ignores X-Forwarded-For from an untrusted socket', () => {
    const { c, socket } = context('198.51.100.7', '203.0.113.9');
    assert.equal(clientAddressResolver(() => socket, ['10.0.0.0/8'])(c), '198.51.100.7');
  });

  it('takes the nearest untrusted hop behind trusted proxies, so a client cannot prepend a forged one', () => {
    const { c, socket } = context('10.0.0.2', '1.2.3.4, 203.0.113.9, 10.0.0.5');
    assert.equal(clientAddressResolver(() => socket, ['10.0.0.0/8'])(c), '203.0.113.9');
  });
});
