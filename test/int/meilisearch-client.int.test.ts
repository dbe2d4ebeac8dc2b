/**
 * The Meilisearch client asks for uncompressed answers (see src/adapters/meilisearch/client.ts:
 * a compressed search answer stalls 40 ms on the client's delayed ACK). Checked on the
 * wire: a local server stands in for Meilisearch and records the headers each adapter sends.
 * The search transport (search-transport.ts) too, and its failures: an error status with
 * Meilisearch's code, a body that is not JSON, silence past its timeout, nothing listening.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { meilisearchClient } from '../../src/adapters/meilisearch/client.ts';
import { meilisearchProbe } from '../../src/adapters/meilisearch/probe.ts';
import { MeilisearchSearchTransport } from '../../src/adapters/meilisearch/search-transport.ts';

async function recordingServer(): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ status: 'available', hits: [], estimatedTotalHits: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('Meilisearch client', () => {
  it('asks for identity encoding on searches and health probes, with the API key', async () => {
    const server = await recordingServer();
    try {
      await meilisearchClient(server.url, 'key-1').index('cases').search('state of', { limit: 20 });
      await meilisearchProbe(server.url, 'key-1').check(AbortSignal.timeout(5_000));
      assert.equal(server.seen.length, 2);
      for (const headers of server.seen) {
        assert.equal(headers['accept-encoding'], 'identity');
        assert.equal(headers.authorization, 'Bearer key-1');
      }
    } finally {
      await server.close();
    }
  });
});

/** A stand-in that answers each request by its path; records the path and headers. */
async function scriptedServer(
  answer: (path: string) => { status: number; body: string } | 'stall',
): Promise<{ url: string; seen: { path: string; headers: IncomingHttpHeaders; body: string }[]; close(): Promise<void> }> {
  const seen: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      const a = answer(req.url ?? '');
      if (a === 'stall') return;
      res.writeHead(a.status, { 'Content-Type': 'application/json' }).end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('Meilisearch search transport', () => {
  it('posts searches under the base path with the key, uncompressed, and reuses one connection', async () => {
    const server = await scriptedServer(() => ({ status: 200, body: JSON.stringify({ hits: [{ caseId: 'c1' }], estimatedTotalHits: 1 }) }));
    const transport = new MeilisearchSearchTransport<{ caseId: string }>(`${server.url}/meili`, 'key-2');
    try {
      const found = await transport.search('cases', 'state of', { limit: 20 });
      assert.deepEqual(found.hits, [{ caseId: 'c1' }]);
      await transport.multiSearch({ queries: [{ indexUid: 'cases', q: 'bail' }] });
      assert.deepEqual(
        server.seen.map((s) => s.path),
        ['/meili/indexes/cases/search', '/meili/multi-search'],
      );
      assert.deepEqual(JSON.parse(server.seen[0]!.body), { q: 'state of', limit: 20 });
      for (const { headers } of server.seen) {
        assert.equal(headers['accept-encoding'], 'identity');
        assert.equal(headers.authorization, 'Bearer key-2');
        assert.equal(headers.connection, 'keep-alive');
      }
    } finally {
      transport.close();
      await server.close();
    }
  });

  it("fails with Meilisearch's status and code, on a body that is not JSON, and on silence past its timeout", async () => {
    const server = await scriptedServer((path) =>
      path.includes('missing')
        ? { status: 404, body: JSON.stringify({ message: 'Index `missing` not found.', code: 'index_not_found' }) }
        : path.includes('garbled')
          ? { status: 502, body: '<html>bad gateway</html>' }
          : 'stall',
    );
    const transport = new MeilisearchSearchTransport(server.url, undefined, 300);
    try {
      await assert.rejects(transport.search('missing', 'x', {}), { name: 'MeilisearchRequestError', status: 404, code: 'index_not_found' });
      await assert.rejects(transport.search('garbled', 'x', {}), { name: 'MeilisearchRequestError', status: 502 });
      const started = performance.now();
      await assert.rejects(transport.search('stalled', 'x', {}), /did not answer within 300 ms/);
      assert.ok(performance.now() - started < 5_000);
      assert.equal(server.seen[0]!.headers.authorization, undefined);
    } finally {
      transport.close();
      await server.close();
    }
  });

  it('fails at once when nothing listens', async () => {
    const server = await scriptedServer(() => 'stall');
    const url = server.url;
    await server.close();
    const transport = new MeilisearchSearchTransport(url, 'k');
    try {
      await assert.rejects(transport.search('cases', 'x', {}), {
        name: 'MeilisearchRequestError',
        message: 'Meilisearch could not be reached',
      });
    } finally {
      transport.close();
    }
  });
});
