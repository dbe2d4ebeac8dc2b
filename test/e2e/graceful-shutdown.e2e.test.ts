/**
 * SIGTERM on the started service (Node, embedded defaults): the listener stops accepting
 * at once, a charged call in flight finishes, is charged once and says Connection: close,
 * and the process exits when it is done, well inside SHUTDOWN_DRAIN_SECONDS. A call that
 * outlives the bound is cut off and charged nothing (a fixed-price call is charged only
 * after its work), which the ledger shows after a restart on the same data folder.
 * The slow call is a semantic search whose embeddings come from a loopback server speaking
 * the OpenAI embeddings API that answers after a delay: a fake, named as one, standing in
 * for a remote embedding service (the local model is too fast to hold a call open).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { devServersOn, processRunning } from '../../src/adapters/temporal/dev-server-ports.ts';
import { freePort } from '../support/service-process.ts';

const TOKEN = 'e2e-shutdown-admin-token-0123456789';
const DIMENSIONS = 8;
const API = '/api/v1/prod';

/** The fake embedding service: every answer waits `delayMs`, then gives one fixed vector per input. */
async function slowEmbeddings(delayMs: () => number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: string[] }).input;
      setTimeout(() => {
        const data = input.map((_, index) => ({
          index,
          embedding: Array.from({ length: DIMENSIONS }, (__, i) => (i === index % DIMENSIONS ? 1 : 0)),
        }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
      }, delayMs());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v1` };
}

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<{ code: number | null; at: number }>;
  readonly output: () => string;
}

/** With `engine`, the service starts its Temporal dev server (on free ports) as `npm start` does. */
async function start(dataDir: string, embeddingsUrl: string, drainSeconds: number, engine = false): Promise<Started> {
  const port = await freePort();
  const temporal = engine
    ? { TEMPORAL_DEV_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()) }
    : // No workflow engine: these tests need none, and the service starts in a second without one.
      { TEMPORAL_CLI_PATH: '/nonexistent/temporal' };
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      AUTO_INGEST: 'false',
      ADMIN_TOKEN: TOKEN,
      LOG_LEVEL: 'info',
      ...temporal,
      EMBEDDINGS_URL: embeddingsUrl,
      EMBEDDINGS_MODEL: 'fake-slow-embeddings',
      EMBEDDINGS_DIMENSIONS: String(DIMENSIONS),
      SHUTDOWN_DRAIN_SECONDS: String(drainSeconds),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  const url = `http://127.0.0.1:${String(port)}`;
  for (let i = 0; i < 240; i += 1) {
    const up = await fetch(`${url}${API}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { child, url, exited, output: () => output };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`the service did not start:\n${output}`);
}

async function admin(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: Record<string, unknown> } & Record<string, unknown>;
  assert.ok(res.ok, JSON.stringify(json));
  return json.data ?? json;
}

async function balanceOf(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}${API}/usage`, { headers: { 'X-API-Key': key } });
  const body = (await res.json()) as { data: { balance: number } };
  return body.data.balance;
}

describe('graceful shutdown on SIGTERM', { timeout: 300_000 }, () => {
  let embeddings: { server: Server; url: string };
  let delay = 3_000;
  const dataDir = mkdtempSync(join(tmpdir(), 'graceful-shutdown-'));
  let key = '';

  before(async () => {
    embeddings = await slowEmbeddings(() => delay);
  });
  after(() => {
    embeddings.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops accepting, lets the charged call in flight finish and be charged once, then exits', async () => {
    const service = await start(dataDir, embeddings.url, 20);
    try {
      const user = await admin(service.url, '/admin/users', { email: 'drain@shutdown.example', name: 'Drain', tier: 'enterprise' });
      const userId = String(user.userId);
      key = String((await admin(service.url, `/admin/users/${userId}/keys`, { name: 'drain' })).fullKey);
      await admin(service.url, `/admin/users/${userId}/credits`, { amount: 1_000 });
      const before = await balanceOf(service.url, key);

      const inFlight = fetch(`${service.url}${API}/search/cases/semantic`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: 'compensation for land acquisition' }),
      });
      await new Promise((r) => setTimeout(r, 1_000));
      const signalledAt = Date.now();
      service.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      const refused = await fetch(`${service.url}${API}/health`).then(
        () => 'answered',
        () => 'refused',
      );
      assert.equal(refused, 'refused', 'no new connection is accepted while draining');

      const res = await inFlight;
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(res.headers.get('connection'), 'close');
      const charged = Number(res.headers.get('x-credits-charged'));
      assert.ok(charged > 0, 'the call that finished was charged');
      const exit = await service.exited;
      assert.equal(exit.code, 0, service.output());
      assert.ok(exit.at - signalledAt < 15_000, `exited ${String(exit.at - signalledAt)} ms after SIGTERM, inside the 20 s bound`);

      const again = await start(dataDir, embeddings.url, 20);
      try {
        assert.equal(await balanceOf(again.url, key), before - charged);
      } finally {
        again.child.kill('SIGTERM');
        await again.exited;
      }
    } finally {
      service.child.kill('SIGKILL');
    }
  });

  it('closes at the bound under a call that outlives it, which is charged nothing', async () => {
    delay = 8_000;
    const service = await start(dataDir, embeddings.url, 1);
    try {
      const before = await balanceOf(service.url, key);
      const cutOff = fetch(`${service.url}${API}/search/cases/semantic`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: 'compensation for land acquisition' }),
      }).then(
        (r) => r.status,
        () => 'cut off',
      );
      await new Promise((r) => setTimeout(r, 1_000));
      const signalledAt = Date.now();
      service.child.kill('SIGTERM');
      const exit = await service.exited;
      assert.equal(exit.code, 0, service.output());
      assert.ok(exit.at - signalledAt < 6_000, `exited ${String(exit.at - signalledAt)} ms after SIGTERM, at the 1 s bound`);
      assert.equal(await cutOff, 'cut off');
      const again = await start(dataDir, embeddings.url, 20);
      try {
        assert.equal(await balanceOf(again.url, key), before, 'nothing was charged for the call cut off');
      } finally {
        again.child.kill('SIGTERM');
        await again.exited;
      }
    } finally {
      service.child.kill('SIGKILL');
    }
  });
});

describe('graceful shutdown on SIGTERM while the workflow engine does not answer', { timeout: 300_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'graceful-shutdown-engine-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('exits within its bound instead of waiting out each worker’s shutdown, and leaves no dev server behind', async () => {
    const embeddings = await slowEmbeddings(() => 0);
    const service = await start(dataDir, embeddings.url, 20, true);
    let engine: number | undefined;
    try {
      // Workers poll once the workflow code is bundled: the deep health check says so.
      const deadline = Date.now() + 120_000;
      for (;;) {
        const health = (await (await fetch(`${service.url}${API}/health?deep=1`)).json()) as { status: string };
        if (health.status === 'healthy') break;
        assert.ok(Date.now() < deadline, `healthy within 120 s: ${JSON.stringify(health)}`);
        await new Promise((r) => setTimeout(r, 1_000));
      }
      const servers = devServersOn(join(dataDir, 'temporal.sqlite'));
      assert.equal(servers.length, 1, 'the service runs its own dev server');
      engine = servers[0]!.pid;
      // Frozen: connections are accepted and never answered, as a hung engine or a network partition does.
      process.kill(engine, 'SIGSTOP');
      const signalledAt = Date.now();
      service.child.kill('SIGTERM');
      const exit = await service.exited;
      assert.equal(exit.code, 0, service.output());
      assert.ok(exit.at - signalledAt < 15_000, `exited ${String(exit.at - signalledAt)} ms after SIGTERM`);
      assert.match(service.output(), /did not stop in its bound/);
      assert.equal(processRunning(engine), false, 'the dev server was stopped with the service');
    } finally {
      if (engine !== undefined && processRunning(engine)) process.kill(engine, 'SIGKILL');
      service.child.kill('SIGKILL');
      embeddings.server.close();
    }
  });
});
