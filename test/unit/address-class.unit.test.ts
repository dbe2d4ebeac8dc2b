/** The one address classifier behind webhook deliveries and remote document fetches, without IO. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressAdmitted, classifyAddress, isLoopbackHost, type AddressClass } from '../../src/domain/network/address-class.ts';

const CASES: readonly (readonly [string, AddressClass])[] = [
  ['93.184.216.34', 'public'],
  ['8.8.8.8', 'public'],
  ['2606:4700::1111', 'public'],
  ['2a00:1450:4001:80b::200e', 'public'],
  ['::ffff:8.8.8.8', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:a00:1', 'private'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fec0::1', 'private'],
  ['100.64.0.1', 'shared'],
  ['100.127.255.255', 'shared'],
  ['169.254.169.254', 'link-local'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  // Forms that carry an IPv4 address inside IPv6: never decoded as public.
  ['::127.0.0.1', 'reserved'],
  ['::ffff:0:7f00:1', 'reserved'],
  ['64:ff9b::a9fe:a9fe', 'reserved'],
  ['2002:7f00:1::1', 'reserved'],
  ['2001:0:4136:e378::1', 'reserved'],
  ['100::1', 'reserved'],
  ['localhost', 'invalid'],
  ['example.com', 'invalid'],
  ['127.1', 'invalid'],
  ['0177.0.0.1', 'invalid'],
  ['', 'invalid'],
];

describe('address classes', () => {
  for (const [address, expected] of CASES) {
    it(`${address || '(empty)'} is ${expected}`, () => assert.equal(classifyAddress(address), expected));
  }
});

describe('address policy', () => {
  it('admits public addresses only, or public and loopback in the development setting', () => {
    for (const [address, kind] of CASES) {
      assert.equal(addressAdmitted(address, 'public'), kind === 'public', address);
      assert.equal(addressAdmitted(address, 'public-or-loopback'), kind === 'public' || kind === 'loopback', address);
    }
  });

  it('reads a listen host as loopback only for localhost and loopback addresses', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost', 'LOCALHOST', '127.0.0.2']) assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'api.example.in', 'fe80::1', '']) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });
});
