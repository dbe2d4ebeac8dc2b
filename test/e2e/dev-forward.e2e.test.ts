/**
 * Black-box: `court-records dev listen --forward-to` against a service it reaches only over
 * HTTP. The service runs as its own process (embedded defaults, the corpus ingested on first
 * start), `dev seed` makes an account, `dev listen` runs as another process with that key and
 * the service's API root, and a receiver on loopback in this process verifies each forwarded
 * body with the secret dev listen printed. Real calls (timelines answered from the store)
 * make the events; every one arrives, signed, and every process is stopped.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { verifyWebhook } from '../../sdk/src/webhooks.ts';
import { corpusDir } from '../support/corpus.ts';
import { noInternet, type NoInternet } from '../support/no-internet.ts';
import { runCommand, startService, type RunningService } from '../support/service-process.ts';

const skip = process.env.ADMIN_TOKEN ? 'ADMIN_TOKEN is set in the test environment' : false;

describe('dev listen --forward-to follows GET /events of a service in another process', { skip }, () => {
  let service: RunningService;
  let offline: NoInternet;
  let receiver: Server;
  let listener: ChildProcess | undefined;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];

  before(async () => {
    offline = await noInternet();
    service = await startService('node', { AUTO_INGEST: 'true', CORPUS_DIR: corpusDir, ...offline.env });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    listener?.kill('SIGKILL');
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await service.stop();
    await offline.close();
  });

  it('forwards every event made by real calls, signed with the secret it printed, then stops', async () => {
    const url = new URL(service.url);
    const env = { HOST: url.hostname, PORT: url.port, DATA_DIR: service.dataDir, DATABASE_URL: '', COURT_RECORDS_URL: '' };
    const seeded = await runCommand(process.execPath, ['bin/court-records.mjs', 'dev', 'seed', '--json', '--credits', '1000'], env);
    assert.equal(seeded.code, 0, seeded.stderr);
    const account = JSON.parse(seeded.stdout) as { apiKey: string; apiRoot: string };
    const forwardTo = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hooks`;

    // Its own process, told only where the API is and the key: no session, nothing registered there.
    const child = spawn(
      process.execPath,
      [
        'bin/court-records.mjs',
        'dev',
        'listen',
        '--forward-to',
        forwardTo,
        '--api-base',
        account.apiRoot,
        '--count',
        '3',
        '--interval',
        '200',
      ],
      { env: { ...process.env, COURT_RECORDS_API_KEY: account.apiKey }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    listener = child;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const secret = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const printed = /signing secret is (whsec_\S+)/.exec(stderr)?.[1];
        if (printed) resolve(printed);
      });
      void exited.then(() => reject(new Error(`dev listen ended before it was ready: ${stderr}`)));
    });

    // Three timelines of a case in the corpus, answered from the store once the first start has ingested it.
    const requestIds: string[] = [];
    const deadline = Date.now() + 180_000;
    while (requestIds.length < 3) {
      assert.ok(Date.now() < deadline, 'the corpus was never ingested');
      const res = await fetch(`${account.apiRoot}/request-timeline`, {
        method: 'POST',
        headers: { 'X-API-Key': account.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ cnr: 'GAHC010225502018' }),
      });
      const body = (await res.json()) as { data?: { requestId: string } };
      if (res.status === 202 && body.data) requestIds.push(body.data.requestId);
      else await new Promise((resolve) => setTimeout(resolve, 1_000));
    }

    const timeout = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await exited;
    clearTimeout(timeout);
    listener = undefined;
    assert.equal(code, 0, `stdout: ${stdout}\nstderr: ${stderr}`);
    assert.equal(received.length, 3, stderr);
    const events = await Promise.all(received.map((r) => verifyWebhook({ payload: r.body, headers: r.headers, secret })));
    assert.deepEqual(
      events.map((e) => e.type),
      ['timeline.completed', 'timeline.completed', 'timeline.completed'],
    );
    assert.deepEqual(events.map((e) => (e.type === 'timeline.completed' ? e.data.requestId : e.type)).sort(), [...requestIds].sort());
    // What it forwarded is the event GET /events serves, and the webhook-id is its id.
    const first = JSON.parse(received[0]!.body) as { id: string };
    assert.equal(received[0]!.headers['webhook-id'], first.id);
    const served = await fetch(`${account.apiRoot}/events/${first.id}`, { headers: { 'X-API-Key': account.apiKey } });
    assert.deepEqual(((await served.json()) as { data: unknown }).data, JSON.parse(received[0]!.body));
    assert.equal(stdout.trim().split('\n').length, 3);
  });
});
