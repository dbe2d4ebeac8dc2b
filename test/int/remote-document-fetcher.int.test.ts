/**
 * The remote document fetcher's address guard against a real site on loopback: a literal
 * host and every address a name resolves to are checked at connect, on every redirect hop,
 * whatever the allowlist says. Names are answered by a fake resolver (no DNS query leaves the
 * machine); refusals of private and link-local addresses happen before any socket is opened,
 * so nothing is ever sent outside loopback.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpRemoteDocuments } from '../../src/adapters/http/remote-document-fetcher.ts';
import type { AddressPolicy } from '../../src/domain/network/address-class.ts';
import { RemoteFetchRefusedError } from '../../src/ports/remote-documents.ts';

const PDF = Buffer.from('%PDF-1.4 a judgment');

/** A fake resolver standing in for DNS: each name answers the addresses given. */
const ANSWERS: Record<string, string[]> = {
  'court.example.in': ['127.0.0.1'],
  'mixed.example.in': ['127.0.0.1', '10.0.0.7'],
  'metadata.example.in': ['169.254.169.254'],
};
const fakeResolver = (hostname: string) => {
  const addresses = ANSWERS[hostname];
  if (!addresses) return Promise.reject(Object.assign(new Error(`no such name ${hostname}`), { code: 'ENOTFOUND' }));
  return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
};

describe('remote document fetches: the address guard', () => {
  let site: Server;
  let port = '';
  const requests: string[] = [];
  before(async () => {
    site = createServer((req, res) => {
      const path = req.url ?? '/';
      requests.push(path);
      const redirects: Record<string, string> = {
        '/to-private': 'http://10.0.0.1/doc.pdf',
        '/to-metadata': `http://metadata.example.in:${port}/doc.pdf`,
        '/to-mixed': `http://mixed.example.in:${port}/doc.pdf`,
        '/to-doc': `http://court.example.in:${port}/doc.pdf`,
      };
      const location = redirects[path];
      if (location) res.writeHead(302, { location }).end();
      else res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    port = String((site.address() as AddressInfo).port);
  });
  after(() => new Promise<void>((resolve) => site.close(() => resolve())));

  const fetcher = (addresses: AddressPolicy) =>
    new HttpRemoteDocuments({
      // Every host these tests name is allow-listed: what stops them is the address check alone.
      allowlist: [`127.0.0.1:${port}`, '10.0.0.1', 'court.example.in', 'mixed.example.in', 'metadata.example.in'],
      timeoutMs: 2_000,
      maxBytes: 1_000,
      addresses,
      resolver: fakeResolver,
    });

  it('refuses an allow-listed host that is, or resolves to, loopback unless in the development setting, sending nothing', async () => {
    requests.length = 0;
    for (const url of [`http://127.0.0.1:${port}/doc.pdf`, `http://court.example.in:${port}/doc.pdf`]) {
      await assert.rejects(fetcher('public').fetchPdf(url), RemoteFetchRefusedError, url);
    }
    assert.deepEqual(requests, []);
  });

  it('connects to the vetted address: loopback, by literal or by name, in the development setting', async () => {
    requests.length = 0;
    assert.deepEqual(Buffer.from(await fetcher('public-or-loopback').fetchPdf(`http://127.0.0.1:${port}/doc.pdf`)), PDF);
    assert.deepEqual(Buffer.from(await fetcher('public-or-loopback').fetchPdf(`http://court.example.in:${port}/doc.pdf`)), PDF);
    assert.deepEqual(requests, ['/doc.pdf', '/doc.pdf']);
  });

  it('re-checks every redirect hop: a hop to a private, link-local or mixed name is refused; one to an admitted name is followed', async () => {
    requests.length = 0;
    const loose = fetcher('public-or-loopback');
    for (const path of ['/to-private', '/to-metadata', '/to-mixed']) {
      await assert.rejects(loose.fetchPdf(`http://127.0.0.1:${port}${path}`), RemoteFetchRefusedError, path);
    }
    // Only the first hops reached the site: each refused hop was stopped before its connection.
    assert.deepEqual(requests, ['/to-private', '/to-metadata', '/to-mixed']);
    assert.deepEqual(Buffer.from(await loose.fetchPdf(`http://127.0.0.1:${port}/to-doc`)), PDF);
  });

  it('refuses a name with any non-public address, even when one of them is admitted', async () => {
    requests.length = 0;
    await assert.rejects(fetcher('public-or-loopback').fetchPdf(`http://mixed.example.in:${port}/doc.pdf`), RemoteFetchRefusedError);
    assert.deepEqual(requests, []);
  });
});
