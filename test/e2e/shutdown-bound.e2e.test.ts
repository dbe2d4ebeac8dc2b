/**
 * Black-box: SIGTERM ends the started service (Node) within SHUTDOWN_DRAIN_SECONDS plus the
 * close bound and the exit grace, whatever it is doing: loading the corpus on first start,
 * embedding it, building test mode, with its workflow engine killed, with Meilisearch
 * killed, and after sustained load. Each service drains for 1 s, so it must be gone 13 s
 * after the signal. The slow embeddings come from a loopback server speaking the OpenAI
 * embeddings API (a fake, named as one) that holds each answer for 30 s, so the embedding
 * projector is inside a call when the signal comes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { devServersOn } from '../../src/adapters/temporal/dev-server-ports.ts';
import { stopDeadlines } from '../../src/composition/exit-guard.ts';
import { corpusDir } from '../support/corpus.ts';
import { startMeilisearch, meilisearchMissing } from '../support/meilisearch.ts';
import { freePort, startService, type StartedService } from '../support/service-process.ts';

const API = '/api/v1/prod';
const TOKEN = 'e2e-shutdown-bound-admin-token-0123';
const DRAIN_SECONDS = 1;
const { goneByMs } = stopDeadlines(DRAIN_SECONDS);
/** No workflow engine where the state needs none: the service starts in seconds without one. */
const NO_ENGINE = { TEMPORAL_CLI_PATH: '/nonexistent/temporal' };
const BASE = { SHUTDOWN_DRAIN_SECONDS: String(DRAIN_SECONDS), ADMIN_TOKEN: TOKEN, AUTO_INGEST: 'false' };

/** SIGTERM, and the process must be gone within the bound; how it ended is reported. */
async function endsWithinBound(t: TestContext, service: StartedService, state: string): Promise<void> {
  const ended = await service.terminate(goneByMs + 5_000);
  assert.ok(ended, `${state}: still running ${String(goneByMs + 5_000)} ms after SIGTERM:\n${service.output().slice(-3_000)}`);
  t.diagnostic(`${state}: ended ${String(ended.ms)} ms after SIGTERM (code ${String(ended.code)}, signal ${String(ended.signal)})`);
  assert.ok(
    ended.ms < goneByMs,
    `${state}: ended ${String(ended.ms)} ms after SIGTERM, past the ${String(goneByMs)} ms bound:\n${service.output().slice(-3_000)}`,
  );
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `${what} within ${String(withinMs)} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function admin(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: Record<string, unknown> };
  assert.ok(res.ok, JSON.stringify(json));
  return json.data ?? {};
}

/** A funded user's key of `mode`. */
async function keyOf(url: string, mode: 'live' | 'test'): Promise<string> {
  const user = await admin(url, '/admin/users', {
    email: `${mode}-${String(Date.now())}@shutdown.example`,
    name: 'Stop',
    tier: 'enterprise',
  });
  const userId = String(user.userId);
  await admin(url, `/admin/users/${userId}/credits`, { amount: 1_000_000 });
  return String((await admin(url, `/admin/users/${userId}/keys`, { name: mode, mode })).fullKey);
}

/** The fake embedding service: counts the calls it got, answers each after `delayMs`. */
async function slowEmbeddings(delayMs: number): Promise<{ server: Server; url: string; calls: () => number }> {
  let calls = 0;
  const server = createServer((req, res) => {
    calls += 1;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: string[] }).input;
      const timer = setTimeout(() => {
        const data = input.map((_, index) => ({ index, embedding: Array.from({ length: 8 }, (__, i) => (i === index % 8 ? 1 : 0)) }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
      }, delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v1`;
  return { server, url, calls: () => calls };
}

describe('SIGTERM ends the service within the drain plus the close bound', { timeout: 600_000 }, () => {
  // Fifty Supreme Court judgments with text: ingested in seconds, then indexed and embedded.
  const smallCorpus = mkdtempSync(join(tmpdir(), 'shutdown-corpus-'));
  let service: StartedService | undefined;
  before(() => symlinkSync(join(corpusDir, 'sc-judgments-text-ik50'), join(smallCorpus, 'sc-judgments-text-ik50')));
  after(async () => {
    await service?.stop();
    rmSync(smallCorpus, { recursive: true, force: true });
  });

  it('while it loads the corpus on first start', async (t) => {
    service = await startService('node', { ...BASE, ...NO_ENGINE, CORPUS_DIR: corpusDir, AUTO_INGEST: 'true' });
    await new Promise((r) => setTimeout(r, 1_500));
    assert.doesNotMatch(service.output(), /corpus ingested/, 'the signal comes during the ingest');
    await endsWithinBound(t, service, 'first-start ingest');
    await service.stop();
  });

  it('while the embedding projector is inside an embedding call', async (t) => {
    const embeddings = await slowEmbeddings(30_000);
    try {
      service = await startService('node', {
        ...BASE,
        ...NO_ENGINE,
        CORPUS_DIR: smallCorpus,
        AUTO_INGEST: 'true',
        EMBEDDINGS_URL: embeddings.url,
        EMBEDDINGS_MODEL: 'fake-slow-embeddings',
        EMBEDDINGS_DIMENSIONS: '8',
      });
      await waitFor('an embedding call', () => embeddings.calls() > 0, 60_000);
      await endsWithinBound(t, service, 'embedding');
      await service.stop();
    } finally {
      embeddings.server.closeAllConnections();
      embeddings.server.close();
    }
  });

  it('while test mode is being built for its first call', async (t) => {
    service = await startService('node', { ...BASE, ...NO_ENGINE, CORPUS_DIR: corpusDir });
    const running = service;
    const testKey = await keyOf(running.url, 'test');
    const first = fetch(`${running.url}${API}/search/cases`, {
      method: 'POST',
      headers: { 'X-API-Key': testKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'union of india' }),
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1_500));
    assert.doesNotMatch(running.output(), /test mode ready/, 'the signal comes during the build');
    await endsWithinBound(t, running, 'test-mode build');
    await first;
    await running.stop();
  });

  it('with its workflow engine killed', async (t) => {
    service = await startService('node', {
      ...BASE,
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
    });
    const servers = devServersOn(join(service.dataDir, 'temporal.sqlite'));
    assert.equal(servers.length, 1, 'the service runs its own dev server');
    process.kill(servers[0]!.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 3_000));
    await endsWithinBound(t, service, 'engine gone');
    await service.stop();
  });

  it('with Meilisearch killed under the search projector', { skip: meilisearchMissing }, async (t) => {
    const meili = await startMeilisearch();
    try {
      service = await startService('node', {
        ...BASE,
        ...NO_ENGINE,
        MEILI_URL: meili.url,
        MEILI_API_KEY: meili.apiKey,
        CORPUS_DIR: smallCorpus,
        AUTO_INGEST: 'true',
      });
      await meili.kill();
      await new Promise((r) => setTimeout(r, 2_000));
      await endsWithinBound(t, service, 'Meilisearch gone');
      await service.stop();
    } finally {
      await meili.stop();
    }
  });

  it('after sustained load, with requests still coming', async (t) => {
    service = await startService('node', { ...BASE, ...NO_ENGINE });
    const running = service;
    const key = await keyOf(running.url, 'live');
    const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
    const calls = [
      () => fetch(`${running.url}${API}/me`, { headers }),
      () => fetch(`${running.url}${API}/usage`, { headers }),
      () => fetch(`${running.url}${API}/search/cases`, { method: 'POST', headers, body: JSON.stringify({ query: 'land acquisition' }) }),
      () => fetch(`${running.url}${API}/health?deep=1`),
      () => fetch(`${running.url}${API}/coverage`),
    ];
    let loading = true;
    let answered = 0;
    const client = async (offset: number) => {
      for (let i = offset; loading; i += 1) {
        const res = await calls[i % calls.length]!().catch(() => undefined);
        if (res) {
          await res.arrayBuffer().catch(() => undefined);
          answered += 1;
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, i) => client(i));
    await new Promise((r) => setTimeout(r, 20_000));
    assert.ok(answered > 100, `load ran: ${String(answered)} answers`);
    await endsWithinBound(t, running, 'sustained load');
    loading = false;
    await Promise.all(clients);
    await running.stop();
  });
});
