/**
 * The connect-time lookup hook, without IO: a fake resolver stands in for DNS, and the hook
 * is called as node's connect calls it (one address, or every one for happy eyeballs).
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, it } from 'node:test';
import { AddressGuard, type Resolver } from '../../src/adapters/network/address-guard.ts';
import type { AddressPolicy } from '../../src/domain/network/address-class.ts';

class Refused extends Error {}

const fakeResolver: Resolver = (hostname) => {
  const answers: Record<string, string[]> = {
    'public.example.in': ['93.184.216.34', '2606:4700::1111'],
    'loopback.example.in': ['127.0.0.1', '::1'],
    'rebinding.example.in': ['93.184.216.34', '127.0.0.1'],
    'split.example.in': ['93.184.216.34', 'fd00::1'],
    'metadata.example.in': ['169.254.169.254'],
    'mapped.example.in': ['::ffff:10.0.0.1'],
    'empty.example.in': [],
  };
  const addresses = answers[hostname];
  if (!addresses) return Promise.reject(Object.assign(new Error('no such name'), { code: 'ENOTFOUND' }));
  return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
};

const guard = (policy: AddressPolicy) => new AddressGuard({ policy, resolver: fakeResolver, refuse: (m) => new Refused(m) });

/** The hook's answer: an error, or what node's connect would receive. */
function lookup(policy: AddressPolicy, hostname: string, options: { all?: boolean; family?: number }) {
  return new Promise<{ error: Error | null; answer: string | LookupAddress[]; family?: number }>((resolve) => {
    const callback = (error: Error | null, answer: string | LookupAddress[], family?: number) => resolve({ error, answer, family });
    guard(policy).lookup(hostname, options, callback);
  });
}

describe('the address guard’s lookup hook', () => {
  it('answers node with the vetted addresses, one or all, of the family asked', async () => {
    assert.deepEqual(await lookup('public', 'public.example.in', {}), { error: null, answer: '93.184.216.34', family: 4 });
    assert.deepEqual(await lookup('public', 'public.example.in', { family: 6 }), { error: null, answer: '2606:4700::1111', family: 6 });
    assert.deepEqual((await lookup('public', 'public.example.in', { all: true })).answer, [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
    assert.equal((await lookup('public-or-loopback', 'loopback.example.in', {})).answer, '127.0.0.1');
  });

  it('refuses a name when any of its addresses is refused, or when it has none', async () => {
    for (const [policy, hostname] of [
      ['public', 'loopback.example.in'],
      ['public', 'rebinding.example.in'],
      // Asking for IPv4 only must not hide a refused IPv6 answer, nor the reverse.
      ['public-or-loopback', 'split.example.in'],
      ['public-or-loopback', 'metadata.example.in'],
      ['public-or-loopback', 'mapped.example.in'],
      ['public-or-loopback', 'empty.example.in'],
    ] as const) {
      for (const options of [{}, { all: true }, { family: 4 }, { family: 6 }]) {
        const { error } = await lookup(policy, hostname, options);
        assert.ok(error instanceof Refused, `${policy} ${hostname} ${JSON.stringify(options)}`);
      }
    }
  });

  it('passes a resolver failure through as it is (no answer, not a refusal)', async () => {
    const { error } = await lookup('public', 'unknown.example.in', {});
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOTFOUND');
  });

  it('refuses a literal host outside the policy before any request, and leaves names to the hook', () => {
    for (const url of ['http://10.0.0.1/', 'http://[fe80::1]/', 'http://[::ffff:a9fe:a9fe]/', 'http://0.0.0.0/', 'http://127.0.0.1/']) {
      assert.throws(() => guard('public').checkHost(new URL(url)), Refused, url);
    }
    guard('public-or-loopback').checkHost(new URL('http://127.0.0.1:8080/'));
    guard('public').checkHost(new URL('https://hooks.example.in/'));
  });
});
