/**
 * A receiver stopped during a burst catches up from GET /events. Real deliveries: facts
 * committed through the application, the webhook projector and dispatcher, one workflow per
 * delivery on the Temporal dev server, and a receiver on loopback that verifies each body
 * with the SDK's verifier and handles each event id once. It goes down partway through a
 * burst; back up, it pages GET /events (oldest first) from the last event it handled, then
 * the retried deliveries arrive too and are recognised as seen. It ends with every event of
 * the burst handled exactly once.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { TemporalWebhookWorkflows } from '../../src/adapters/temporal/webhook-workflows.ts';
import { createWorker } from '../../src/adapters/temporal/workers.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { eventStoreOf } from '../../src/wiring.ts';
import { verifyWebhook } from '../../sdk/src/webhooks.ts';
import { TASK_QUEUES } from '../../workflows/task-queues.ts';
import { createWebhookActivities } from '../../workflows/activities/webhook-activities.ts';
import { keyedUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { NO_TEMPORAL_CLI, startTestTemporal, temporalCli, workflowBundle, type TestTemporal } from '../support/temporal.ts';

/** A webhook receiver that handles each event id once, however often it is delivered. */
class Receiver {
  /** Event id → times handled. */
  readonly handled = new Map<string, number>();
  /** Ids in the order they were handled. */
  readonly order: string[] = [];
  deliveries = 0;
  #server: Server | undefined;
  port = 0;

  constructor(private readonly secret: () => string) {}

  handle(id: string): void {
    if (this.handled.has(id)) return;
    this.handled.set(id, (this.handled.get(id) ?? 0) + 1);
    this.order.push(id);
  }

  async up(port = 0): Promise<void> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.deliveries += 1;
        const payload = Buffer.concat(chunks).toString('utf8');
        verifyWebhook({ payload, headers: req.headers, secret: this.secret() }).then(
          () => {
            // The body is the event object: its id is what a receiver deduplicates on.
            this.handle((JSON.parse(payload) as { id: string }).id);
            res.writeHead(200).end('ok');
          },
          () => res.writeHead(400).end('bad signature'),
        );
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function eventually(what: string, check: () => boolean | Promise<boolean>, step: () => Promise<unknown>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await step();
    await new Promise((r) => setTimeout(r, 50));
  }
}

const skip = temporalCli() ? false : NO_TEMPORAL_CLI;
const factory = databases.at(-1)!;

describe(`a receiver stopped during a burst catches up from GET /events (${factory.name})`, { skip }, () => {
  let database: TestDatabase;
  let temporal: TestTemporal;
  let t: TestApp;
  let projector: ProjectorRunner;
  let stopWorker: () => Promise<void> = async () => undefined;
  let user: { userId: string; key: string };
  let secret = '';
  const receiver = new Receiver(() => secret);

  before(async () => {
    database = await factory.open();
    temporal = await startTestTemporal();
    const workflows = new TemporalWebhookWorkflows(temporal.runtime.client, {
      attemptTimeoutMs: 5_000,
      retry: { initialIntervalMs: 100, backoffCoefficient: 2, maximumIntervalMs: 400, maximumAttempts: 100 },
    });
    t = buildTestApp({ db: database.db, webhookWorkflows: workflows });
    await t.application.invalidator.poll();
    projector = new ProjectorRunner(database.db, eventStoreOf(database.db), t.webhooks.outbox, { now: () => new Date() });
    await projector.catchUp();
    const worker = await createWorker(
      temporal.runtime,
      TASK_QUEUES.webhooks,
      createWebhookActivities({ deliveries: t.webhooks.deliveries }),
      {
        dataConverter: temporal.dataConverter,
        bundle: await workflowBundle(),
      },
    );
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
    };
    user = await keyedUser(t.application.accounts, 'catch-up');
  });

  after(async () => {
    await receiver.down();
    await stopWorker();
    await temporal.close();
    await database.close();
  });

  async function pump(): Promise<void> {
    await projector.catchUp();
    await t.webhooks.dispatcher.dispatch();
  }

  let counter = 0;
  async function fact(): Promise<void> {
    counter += 1;
    await t.timeline.jobs.answerFromStore({
      subject: { caseId: `SC-BURST-${String(counter)}`, cnr: null },
      accountId: user.userId,
      timeline: null,
    });
  }

  /** What a receiver does when it comes back: every event after the last it handled, oldest first, page by page. */
  async function catchUp(lastSeen: string | undefined): Promise<number> {
    let cursor = lastSeen;
    let pages = 0;
    for (;;) {
      const query = new URLSearchParams({ order: 'asc', limit: '3', ...(cursor === undefined ? {} : { startingAfter: cursor }) });
      const res = await t.app.request(`${BASE}/events?${query.toString()}`, { headers: { 'X-API-Key': user.key } });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { data: { id: string }[]; pagination: { hasMore: boolean } };
      pages += 1;
      for (const event of body.data) receiver.handle(event.id);
      cursor = body.data.at(-1)?.id ?? cursor;
      if (!body.pagination.hasMore) return pages;
    }
  }

  it('ends with every event of the burst handled exactly once', async () => {
    await receiver.up();
    const port = receiver.port;
    const registered = await t.webhooks.endpoints.register(
      user.userId,
      { url: `http://127.0.0.1:${String(port)}/hooks`, eventTypes: ['timeline.completed'], mode: 'live' },
      'req-catch-up',
    );
    assert.ok(registered.ok);
    secret = registered.value.secret;

    // The first part of the burst arrives while the receiver is up.
    for (let i = 0; i < 4; i += 1) await fact();
    await eventually('the first 4 handled', () => receiver.handled.size === 4, pump);
    await receiver.down();

    // The rest happens while it is down: deliveries are attempted and refused a connection.
    for (let i = 0; i < 8; i += 1) await fact();
    await eventually(
      'attempts at the down receiver',
      async () => {
        const tried = await database.db
          .selectFrom('webhookDeliveries')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('lastOutcome', '=', 'no_answer')
          .executeTakeFirstOrThrow();
        return Number(tried.n) >= 1;
      },
      pump,
    );
    assert.equal(receiver.handled.size, 4);

    // Back up, on the same address: first it catches up from GET /events, from the last event it handled.
    await receiver.up(port);
    const pages = await catchUp(receiver.order.at(-1));
    assert.ok(pages >= 3, `paged ${String(pages)} times`);
    assert.equal(receiver.handled.size, 12);

    // Then the retried deliveries arrive, all of them, and change nothing.
    await eventually(
      'every delivery settled',
      async () => {
        const rows = await database.db.selectFrom('webhookDeliveries').select('status').where('accountId', '=', user.userId).execute();
        return rows.length === 12 && rows.every((r) => r.status === 'delivered');
      },
      pump,
    );
    assert.ok(receiver.deliveries >= 12);
    const listed = await t.webhooks.events.page(user.userId, 'live', { limit: 100, order: 'asc' });
    assert.ok(listed.ok);
    // Deliveries run side by side, so they may arrive in any order: the same set, each once.
    assert.equal(listed.events.length, 12);
    assert.deepEqual([...receiver.handled.keys()].sort(), listed.events.map((e) => e.id).sort());
    assert.ok([...receiver.handled.values()].every((n) => n === 1));
  });
});
