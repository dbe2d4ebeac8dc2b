/**
 * Webhooks end to end: endpoints registered through the settings routes (session and
 * CSRF), facts committed through the real application (an analysis run admitted and
 * stored or failed), the webhook projector and dispatcher, one workflow per delivery on
 * the real Temporal dev server, and a real receiver (a node http server on loopback)
 * whose answers each test scripts. Every received delivery is checked with the SDK's
 * verifier. Also the sender's own guards (addresses, redirects, answer size) against
 * live sockets. The projector and dispatcher are pumped by the test instead of their
 * timers, so each step is observed.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpWebhookSender } from '../../src/adapters/webhooks/http-webhook-sender.ts';
import { TemporalWebhookWorkflows } from '../../src/adapters/temporal/webhook-workflows.ts';
import { createWorker } from '../../src/adapters/temporal/workers.ts';
import { WEBHOOK_PROJECTOR } from '../../src/application/webhooks/webhook-outbox.ts';
import { ENDED_UNSETTLED, WebhookDispatcher } from '../../src/application/webhooks/webhook-dispatcher.ts';
import type { App } from '../../src/http/app-types.ts';
import { jsonb } from '../../src/db/jsonb.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { openPostgres } from '../../src/db/open.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { WebhookAddressRefusedError } from '../../src/ports/webhooks.ts';
import { verifyWebhook, WebhookVerificationError, type AnalysisEventData } from '../../sdk/src/webhooks.ts';
import { TASK_QUEUES } from '../../workflows/task-queues.ts';
import { createWebhookActivities } from '../../workflows/activities/webhook-activities.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { buildTestApp, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import {
  NO_TEMPORAL_CLI,
  recordHistories,
  startTestTemporal,
  temporalCli,
  workflowBundle,
  type TestTemporal,
} from '../support/temporal.ts';
import { workflowIds } from '../../workflows/task-queues.ts';
import { eventStoreOf } from '../../src/wiring.ts';

const PASSWORD = 'correct horse battery staple';
const operator = { kind: 'operator' } as const;

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A receiver on loopback: records every request; each path answers from its script, then 200. */
class Receiver {
  readonly received: Received[] = [];
  readonly scripts = new Map<string, number[]>();
  #server: Server | undefined;
  port = 0;

  async listen(port = 0): Promise<void> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const status = this.scripts.get(path)?.shift() ?? 200;
        res.writeHead(status).end(status === 200 ? 'ok' : 'not now');
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}

async function eventually(
  what: string,
  check: () => Promise<boolean> | boolean,
  step: () => Promise<unknown>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await step();
    await new Promise((r) => setTimeout(r, 50));
  }
}

const skip = temporalCli() ? false : NO_TEMPORAL_CLI;

/** A fake resolver standing in for DNS: each name answers the addresses given, so no query leaves the machine. */
function fakeResolver(answers: Record<string, string[]>) {
  const asked: string[] = [];
  const resolver = (hostname: string) => {
    asked.push(hostname);
    const addresses = answers[hostname];
    if (!addresses) return Promise.reject(Object.assign(new Error(`no such name ${hostname}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return { resolver, asked };
}

/** The suite's service resolves names with this: one name in private space, one that also answers loopback. */
const suiteResolver = fakeResolver({
  'private.example.in': ['10.0.0.9'],
  'rebound.example.in': ['127.0.0.1', '169.254.169.254'],
}).resolver;

for (const factory of databases) {
  describe(`webhooks (${factory.name})`, { skip }, () => {
    let database: TestDatabase;
    let temporal: TestTemporal;
    let t: TestApp;
    let app: App;
    let projector: ProjectorRunner;
    const receiver = new Receiver();
    const accounts: Record<'first' | 'second', { userId: string; cookie: string; csrf: string }> = {
      first: { userId: '', cookie: '', csrf: '' },
      second: { userId: '', cookie: '', csrf: '' },
    };
    let caseCounter = 0;
    let stopWorker: () => Promise<void> = async () => undefined;

    async function call(who: keyof typeof accounts, method: string, path: string, body?: unknown) {
      const session = accounts[who];
      const res = await app.request(`http://localhost${path}`, {
        method,
        headers: {
          Cookie: session.cookie,
          'X-CSRF-Token': session.csrf,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return {
        status: res.status,
        body: (await res.json()) as { data: Record<string, unknown> & Record<string, unknown>[]; code?: string },
      };
    }

    async function register(who: keyof typeof accounts, path: string, eventTypes: string[]): Promise<{ id: string; secret: string }> {
      const { status, body } = await call(who, 'POST', '/api/settings/webhooks', {
        url: `http://127.0.0.1:${String(receiver.port)}${path}`,
        eventTypes,
      });
      assert.equal(status, 201, JSON.stringify(body));
      return body.data as unknown as { id: string; secret: string };
    }

    /** An analysis run of `who`'s account admitted and stored (or failed): the fact a webhook announces. */
    async function analysisEnds(
      who: keyof typeof accounts,
      outcome: 'stored' | 'failed' = 'stored',
    ): Promise<{ runId: string; caseId: string }> {
      caseCounter += 1;
      const caseId = `SC-WEBHOOK-${String(caseCounter)}`;
      const admitted = await t.analysis.runs.admit({
        subject: { kind: 'single', caseId, caseNumberNormalised: `civil appeal ${String(caseCounter)} of 2024` },
        accountId: accounts[who].userId,
        requestId: `req-${caseId}`,
        price: 10,
        payment: { kind: 'charge' },
        allowRemoteFetch: false,
        remoteFetchPlanned: false,
        concurrencyCap: null,
      });
      assert.ok(admitted.ok);
      if (outcome === 'stored')
        await t.analysis.runs.store(admitted.runId, { model: 'test', caseIds: [caseId], analysis: { summary: 'x' } });
      else await t.analysis.runs.fail(admitted.runId, 'the analyser failed');
      return { runId: admitted.runId, caseId };
    }

    /** What the service's timers do: project committed facts into deliveries, then start their workflows. */
    async function pump(): Promise<void> {
      await projector.catchUp();
      await t.webhooks.dispatcher.dispatch();
    }

    /** The rows projected for an endpoint. A fact is read once no older transaction is open (cluster-wide on PostgreSQL), so this waits. */
    async function projected(endpointId: string, count: number): Promise<{ deliveryId: string }[]> {
      const rows = () => database.db.selectFrom('webhookDeliveries').select('deliveryId').where('endpointId', '=', endpointId).execute();
      await eventually(
        `${String(count)} projected deliveries`,
        async () => (await rows()).length >= count,
        () => projector.catchUp(),
      );
      return rows();
    }

    async function checkpoint(): Promise<number> {
      const row = await database.db
        .selectFrom('projectorCheckpoints')
        .select('globalPosition')
        .where('projector', '=', WEBHOOK_PROJECTOR)
        .executeTakeFirst();
      return row?.globalPosition ?? 0;
    }

    /** A dashboard session of the account (its own login form, CSRF cookie and token). */
    async function dashboardSession(who: keyof typeof accounts): Promise<string> {
      const form = await app.request('http://localhost/dashboard/login');
      const loginCookie = /dashboard_login=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')?.[1];
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
      assert.ok(loginCookie && csrf);
      const res = await app.request('http://localhost/dashboard/login', {
        method: 'POST',
        headers: { Cookie: `dashboard_login=${loginCookie}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          _csrf: csrf,
          email: `${who}.${factory.name}@webhooks.example`,
          password: PASSWORD,
          next: '/dashboard/webhooks',
        }).toString(),
      });
      const session = /dashboard_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
      assert.ok(session, 'a dashboard session');
      return `dashboard_session=${session}`;
    }

    async function delivery(deliveryId: string) {
      return database.db.selectFrom('webhookDeliveries').selectAll().where('deliveryId', '=', deliveryId).executeTakeFirst();
    }

    before(async () => {
      database = await factory.open();
      temporal = await startTestTemporal();
      const workflows = new TemporalWebhookWorkflows(temporal.runtime.client, {
        attemptTimeoutMs: 5_000,
        retry: { initialIntervalMs: 100, backoffCoefficient: 2, maximumIntervalMs: 400, maximumAttempts: 30 },
      });
      t = buildTestApp({ db: database.db, webhookWorkflows: workflows, resolver: suiteResolver });
      app = t.app;
      projector = new ProjectorRunner(database.db, eventStoreOf(database.db), t.webhooks.outbox, { now: () => new Date() });
      // Only what commits from here on: the projector starts at the head, as on a fresh deploy.
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
      await receiver.listen();
      for (const who of ['first', 'second'] as const) {
        const email = `${who}.${factory.name}@webhooks.example`;
        const user = await t.application.accounts.registerUser(enterpriseUser(email, { password: PASSWORD }), operator);
        assert.ok(user.ok);
        await t.application.credits.grant(user.value.userId, { amount: 10_000, source: 'grant' });
        const res = await app.request('http://localhost/api/settings/login', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email, password: PASSWORD }),
        });
        const body = (await res.json()) as { data: { csrfToken: string } };
        const cookie = /^session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
        assert.ok(cookie);
        accounts[who] = { userId: user.value.userId, cookie: `session=${cookie}`, csrf: body.data.csrfToken };
      }
    });

    after(async () => {
      await receiver.close();
      await stopWorker();
      await temporal.close();
      await database.close();
    });

    it('a stored analysis is delivered once, signed, with ids only; another account’s endpoint hears nothing', async () => {
      const mine = await register('first', '/first', ['analysis.stored']);
      await register('second', '/second', ['analysis.stored', 'analysis.failed']);
      const { runId, caseId } = await analysisEnds('first');
      await eventually('the delivery', () => receiver.at('/first').length === 1, pump);
      const [got] = receiver.at('/first');
      assert.ok(got);
      const event = await verifyWebhook({ payload: got.body, headers: got.headers, secret: mine.secret });
      assert.ok(event.type === 'analysis.stored', event.type);
      // The SDK's typed event is what arrives: narrowed by type, data has exactly its declared fields.
      const data: AnalysisEventData = event.data;
      assert.deepEqual(data, { runId, kind: 'single', caseId });
      assert.ok(Math.abs(Date.parse(event.timestamp) - Date.now()) < 60_000);
      const deliveryId = got.headers['webhook-id'] as string;
      await eventually('the delivered mark', async () => (await delivery(deliveryId))?.status === 'delivered', pump);
      // More passes find nothing more to send, to anyone.
      for (let i = 0; i < 5; i += 1) await pump();
      assert.equal(receiver.at('/first').length, 1);
      assert.equal(receiver.at('/second').length, 0);
      const listed = await call('first', 'GET', `/api/settings/webhooks/${mine.id}/deliveries`);
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.data.map((d) => [d.id, d.eventType, d.status, d.attempts, d.lastOutcome]),
        [[deliveryId, 'analysis.stored', 'delivered', 1, 'delivered']],
      );
      // The coarse outcome only: no exact status, no error text.
      assert.deepEqual(Object.keys(listed.body.data[0]!).sort(), [
        'attempts',
        'createdAt',
        'eventType',
        'finishedAt',
        'id',
        'lastAttemptAt',
        'lastOutcome',
        'status',
      ]);
      // The other account cannot read this endpoint's deliveries, nor delete it.
      assert.equal((await call('second', 'GET', `/api/settings/webhooks/${mine.id}/deliveries`)).body.code, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      assert.equal((await call('second', 'DELETE', `/api/settings/webhooks/${mine.id}`)).status, 404);
    });

    it('answers 500, then a redirect (not followed), then 200: delivered once, the same webhook-id and a fresh valid signature on every attempt', async () => {
      const endpoint = await register('second', '/flaky', ['analysis.failed']);
      receiver.scripts.set('/flaky', [500, 302]);
      const { runId } = await analysisEnds('second', 'failed');
      await eventually('three attempts', () => receiver.at('/flaky').length === 3, pump);
      const attempts = receiver.at('/flaky');
      assert.equal(new Set(attempts.map((a) => a.headers['webhook-id'])).size, 1);
      for (const attempt of attempts) {
        const event = await verifyWebhook({ payload: attempt.body, headers: attempt.headers, secret: endpoint.secret });
        assert.equal(event.type, 'analysis.failed');
        assert.equal(event.data.runId, runId);
      }
      const deliveryId = attempts[0]!.headers['webhook-id'] as string;
      await eventually('the delivered mark', async () => (await delivery(deliveryId))?.status === 'delivered', pump);
      assert.equal((await delivery(deliveryId))?.attempts, 3);
      // RECORD_HISTORIES=1 saves it for test/int/workflow-replay.int.test.ts.
      if (process.env.RECORD_HISTORIES && factory.name === 'pglite') {
        await recordHistories(temporal, { 'webhook-retries': workflowIds.webhook(deliveryId) });
      }
      for (let i = 0; i < 5; i += 1) await pump();
      assert.equal(receiver.at('/flaky').length, 3);
      await call('second', 'DELETE', `/api/settings/webhooks/${endpoint.id}`);
    });

    it('a receiver that is down is retried until it is up', async () => {
      const down = new Receiver();
      await down.listen();
      const port = down.port;
      await down.close();
      const { status, body } = await call('first', 'POST', '/api/settings/webhooks', {
        url: `http://127.0.0.1:${String(port)}/later`,
        eventTypes: ['analysis.stored'],
      });
      assert.equal(status, 201);
      const secret = (body.data as unknown as { secret: string }).secret;
      await analysisEnds('first');
      const refused = async () =>
        (await database.db
          .selectFrom('webhookDeliveries')
          .select(['attempts', 'lastError'])
          .where('endpointId', '=', body.data.id as string)
          .executeTakeFirst()) ?? null;
      await eventually('failed attempts', async () => ((await refused())?.attempts ?? 0) >= 2, pump);
      // The operator's column keeps the kind of error; the account sees only that nothing answered.
      assert.match((await refused())?.lastError ?? '', /ECONNREFUSED/);
      const listed = await call('first', 'GET', `/api/settings/webhooks/${body.data.id as string}/deliveries`);
      assert.equal(listed.body.data[0]?.lastOutcome, 'no_answer');
      assert.doesNotMatch(JSON.stringify(listed.body), /ECONNREFUSED|lastError|lastResponseStatus/);
      const up = new Receiver();
      await up.listen(port);
      try {
        await eventually('the delivery once up', () => up.at('/later').length === 1, pump);
        await verifyWebhook({ payload: up.at('/later')[0]!.body, headers: up.at('/later')[0]!.headers, secret });
      } finally {
        await up.close();
        await call('first', 'DELETE', `/api/settings/webhooks/${body.data.id as string}`);
      }
    });

    it('a name resolving to a private address, or to loopback and link-local at once, is never reached: address_refused, failed at once, not retried', async () => {
      const port = String(receiver.port);
      const ids: string[] = [];
      for (const host of ['private.example.in', 'rebound.example.in']) {
        const { status, body } = await call('first', 'POST', '/api/settings/webhooks', {
          url: `http://${host}:${port}/refused`,
          eventTypes: ['analysis.stored'],
        });
        assert.equal(status, 201, host);
        ids.push(body.data.id as string);
      }
      await analysisEnds('first');
      for (const id of ids) {
        const last = async () => (await call('first', 'GET', `/api/settings/webhooks/${id}/deliveries`)).body.data[0];
        await eventually('the refusal', async () => (await last())?.status === 'failed', pump);
        const listed = await last();
        assert.deepEqual([listed?.status, listed?.attempts, listed?.lastOutcome], ['failed', 1, 'address_refused']);
      }
      // The dashboard shows the same coarse outcome, and none of the operator's error text.
      const page = await (
        await app.request('http://localhost/dashboard/webhooks', { headers: { Cookie: await dashboardSession('first') } })
      ).text();
      assert.match(page, /<td>address_refused<\/td>/);
      assert.doesNotMatch(page, /WebhookAddressRefusedError|10\.0\.0\.9|169\.254/);
      for (const id of ids) await call('first', 'DELETE', `/api/settings/webhooks/${id}`);
      assert.equal(receiver.at('/refused').length, 0);
    });

    it('refuses a tampered body, a wrong secret and a replay past the tolerance', async () => {
      const endpoint = await register('first', '/verify', ['analysis.stored']);
      await analysisEnds('first');
      await eventually('the delivery', () => receiver.at('/verify').length === 1, pump);
      const got = receiver.at('/verify')[0]!;
      const reason = async (input: Parameters<typeof verifyWebhook>[0]) =>
        verifyWebhook(input).then(
          () => 'accepted',
          (error: unknown) => (error instanceof WebhookVerificationError ? error.reason : 'other'),
        );
      assert.equal(await reason({ payload: got.body, headers: got.headers, secret: endpoint.secret }), 'accepted');
      assert.equal(
        await reason({ payload: got.body.replace('single', 'consolidated'), headers: got.headers, secret: endpoint.secret }),
        'NO_MATCHING_SIGNATURE',
      );
      const other = await register('first', '/other', ['timeline.completed']);
      assert.equal(await reason({ payload: got.body, headers: got.headers, secret: other.secret }), 'NO_MATCHING_SIGNATURE');
      const later = new Date(Date.now() + 10 * 60 * 1000);
      assert.equal(
        await reason({ payload: got.body, headers: got.headers, secret: endpoint.secret, now: later }),
        'TIMESTAMP_OUT_OF_TOLERANCE',
      );
      await call('first', 'DELETE', `/api/settings/webhooks/${endpoint.id}`);
      await call('first', 'DELETE', `/api/settings/webhooks/${other.id}`);
    });

    it('duplicate triggers (a fact replayed, two dispatchers at once, a repeated store) deliver once', async () => {
      const endpoint = await register('second', '/once', ['analysis.stored']);
      const { runId, caseId } = await analysisEnds('second');
      // The same store again (an activity retried after a crash) records nothing new.
      await t.analysis.runs.store(runId, { model: 'test', caseIds: [caseId], analysis: { summary: 'x' } });
      await projected(endpoint.id, 1);
      const past = await checkpoint();
      // A crash after the deliveries committed but before anything saw them: replay the log from before the fact.
      await database.db.deleteFrom('projectorCheckpoints').where('projector', '=', WEBHOOK_PROJECTOR).execute();
      await eventually(
        'the replay past the fact',
        async () => (await checkpoint()) >= past,
        () => projector.catchUp(),
      );
      const rows = await projected(endpoint.id, 1);
      assert.equal(rows.length, 1);
      // Two dispatchers racing over the same unstarted row: the workflow id lets one start through.
      const rival = new WebhookDispatcher({
        deliveries: t.webhooks.deliveries,
        workflows: new TemporalWebhookWorkflows(temporal.runtime.client, {
          attemptTimeoutMs: 5_000,
          retry: { initialIntervalMs: 100, backoffCoefficient: 2, maximumIntervalMs: 400, maximumAttempts: 3 },
        }),
        clock: systemClock,
        watchAfterMs: 60_000,
        perAccountInFlight: 2,
        onDeliveryError: (id, error) => assert.fail(`${id}: ${String(error)}`),
      });
      const passes = await Promise.all([t.webhooks.dispatcher.dispatch(), rival.dispatch(), t.webhooks.dispatcher.dispatch()]);
      assert.ok(passes.reduce((a, b) => a + b.started, 0) >= 1);
      await eventually('the delivery', () => receiver.at('/once').length >= 1, pump);
      await eventually('the delivered mark', async () => (await delivery(rows[0]!.deliveryId))?.status === 'delivered', pump);
      for (let i = 0; i < 5; i += 1) await pump();
      assert.equal(receiver.at('/once').length, 1);
      await call('second', 'DELETE', `/api/settings/webhooks/${endpoint.id}`);
    });

    it(
      'two instances, each projecting and dispatching over its own pool, deliver once per endpoint per event',
      { skip: factory.name === 'postgres' ? false : 'two pools on one database need PostgreSQL' },
      async () => {
        const second = await openPostgres(database.url!, { max: 5 });
        try {
          const t2 = buildTestApp({
            db: second.db,
            webhookWorkflows: new TemporalWebhookWorkflows(temporal.runtime.client, {
              attemptTimeoutMs: 5_000,
              retry: { initialIntervalMs: 100, backoffCoefficient: 2, maximumIntervalMs: 400, maximumAttempts: 30 },
            }),
          });
          const projector2 = new ProjectorRunner(second.db, eventStoreOf(second.db), t2.webhooks.outbox, { now: () => new Date() });
          const paths = ['/both-a', '/both-b'];
          const endpoints = [];
          for (const path of paths) endpoints.push(await register('first', path, ['analysis.stored']));
          for (let i = 0; i < 3; i += 1) await analysisEnds('first');
          // Both instances' timers at once: projectors, then dispatchers.
          const bothPump = async () => {
            await Promise.all([projector.catchUp(), projector2.catchUp()]);
            await Promise.all([t.webhooks.dispatcher.dispatch(), t2.webhooks.dispatcher.dispatch()]);
          };
          await eventually('every delivery', () => paths.every((path) => receiver.at(path).length >= 3), bothPump);
          for (let i = 0; i < 5; i += 1) await bothPump();
          await new Promise((r) => setTimeout(r, 1_000));
          for (const path of paths) {
            const got = receiver.at(path);
            assert.equal(got.length, 3, `${path}: one delivery per event`);
            assert.equal(new Set(got.map((g) => g.headers['webhook-id'])).size, 3);
          }
          for (const endpoint of endpoints) await call('first', 'DELETE', `/api/settings/webhooks/${endpoint.id}`);
        } finally {
          await second.close();
        }
      },
    );

    /** Puts a delivery's every timestamp an hour back, past the watchdog's quiet time. */
    async function quietForAnHour(deliveryId: string): Promise<void> {
      const hourAgo = new Date(Date.now() - 3_600_000);
      await database.db
        .updateTable('webhookDeliveries')
        .set({ createdAt: hourAgo, lastAttemptAt: hourAgo })
        .where('deliveryId', '=', deliveryId)
        .execute();
    }

    /** An endpoint at `path` answering 503 to every attempt, and the delivery of a stored analysis to it, once attempted. */
    async function failingDelivery(path: string): Promise<{ endpoint: { id: string; secret: string }; deliveryId: string }> {
      const endpoint = await register('second', path, ['analysis.stored']);
      receiver.scripts.set(
        path,
        Array.from({ length: 1_000 }, () => 503),
      );
      await analysisEnds('second');
      await eventually('a first attempt', () => receiver.at(path).length >= 1, pump);
      return { endpoint, deliveryId: receiver.at(path)[0]!.headers['webhook-id'] as string };
    }

    it('starts again, under the same webhook-id, a pending delivery whose workflow the engine lost', async () => {
      const { endpoint, deliveryId } = await failingDelivery('/lost');
      // The engine loses the run: its history deleted, as a wiped or in-memory dev server would.
      const workflowId = workflowIds.webhook(deliveryId);
      await temporal.runtime.client.workflowService.deleteWorkflowExecution({
        namespace: temporal.runtime.namespace,
        workflowExecution: { workflowId },
      });
      await eventually(
        'the history gone',
        () =>
          temporal.runtime.client.workflow
            .getHandle(workflowId)
            .describe()
            .then(
              () => false,
              () => true,
            ),
        async () => undefined,
      );
      receiver.scripts.set('/lost', []);
      // Recent: the watchdog leaves it alone (a running delivery may wait out a backoff).
      const early = await t.webhooks.dispatcher.dispatch();
      assert.equal(early.restarted, 0);
      const attempts = receiver.at('/lost').length;
      await quietForAnHour(deliveryId);
      await eventually('the delivery, started again', async () => (await delivery(deliveryId))?.status === 'delivered', pump);
      const received = receiver.at('/lost');
      assert.ok(received.length > attempts);
      assert.deepEqual(new Set(received.map((r) => r.headers['webhook-id'])), new Set([deliveryId]));
      await verifyWebhook({ payload: received.at(-1)!.body, headers: received.at(-1)!.headers, secret: endpoint.secret });
      await call('second', 'DELETE', `/api/settings/webhooks/${endpoint.id}`);
    });

    it('fails a pending delivery whose workflow was ended from outside, and sends nothing more', async () => {
      const { endpoint, deliveryId } = await failingDelivery('/ended');
      await temporal.runtime.client.workflow.getHandle(workflowIds.webhook(deliveryId)).terminate('ended by an operator');
      await quietForAnHour(deliveryId);
      await eventually('the failed mark', async () => (await delivery(deliveryId))?.status === 'failed', pump);
      assert.equal((await delivery(deliveryId))?.lastError, ENDED_UNSETTLED);
      const attempts = receiver.at('/ended').length;
      for (let i = 0; i < 5; i += 1) await pump();
      assert.equal(receiver.at('/ended').length, attempts);
      receiver.scripts.delete('/ended');
      await call('second', 'DELETE', `/api/settings/webhooks/${endpoint.id}`);
    });

    it('deletes deliveries that ended before the retention bound, in batches, and never a pending one', async () => {
      const endpoint = await register('first', '/retention', ['analysis.stored']);
      const day = 86_400_000;
      const now = Date.now();
      const rows = [
        ['old-delivered', 'delivered', now - 40 * day],
        ['old-failed', 'failed', now - 40 * day],
        ['old-cancelled', 'cancelled', now - 31 * day],
        ['recent-delivered', 'delivered', now - day],
        ['old-pending', 'pending', null],
      ] as const;
      for (const [name, status, finished] of rows)
        await database.db
          .insertInto('webhookDeliveries')
          .values({
            deliveryId: `msg_retention_${factory.name}_${name}`,
            accountId: accounts.first.userId,
            endpointId: endpoint.id,
            sourceEventId: `retention-${name}@1`,
            eventType: 'analysis.stored',
            payload: jsonb({ type: 'analysis.stored', timestamp: new Date(now - 41 * day).toISOString(), mode: 'live', data: {} }),
            status,
            // Started, so this test's pending row is the watchdog's and not the outbox's; it is removed below.
            workflowStarted: true,
            createdAt: new Date(now - 41 * day),
            finishedAt: finished === null ? null : new Date(finished),
          })
          .execute();
      const pruned = await t.webhooks.deliveries.prune(new Date(now - 30 * day), 2);
      assert.equal(pruned, 3);
      const left = await database.db
        .selectFrom('webhookDeliveries')
        .select('deliveryId')
        .where('endpointId', '=', endpoint.id)
        .orderBy('deliveryId')
        .execute();
      assert.deepEqual(
        left.map((r) => r.deliveryId),
        [`msg_retention_${factory.name}_old-pending`, `msg_retention_${factory.name}_recent-delivered`],
      );
      assert.equal(await t.webhooks.deliveries.prune(new Date(now - 30 * day), 2), 0, 'a second sweep finds nothing');
      await call('first', 'DELETE', `/api/settings/webhooks/${endpoint.id}`);
      await database.db.deleteFrom('webhookDeliveries').where('endpointId', '=', endpoint.id).execute();
    });

    it('a deleted endpoint receives nothing more, and a delivery pending for it is cancelled', async () => {
      const endpoint = await register('first', '/gone', ['analysis.stored']);
      await analysisEnds('first');
      const pending = await projected(endpoint.id, 1);
      assert.equal(pending.length, 1);
      assert.equal((await call('first', 'DELETE', `/api/settings/webhooks/${endpoint.id}`)).status, 200);
      assert.equal((await delivery(pending[0]!.deliveryId))?.status, 'cancelled');
      await analysisEnds('first');
      const head = await database.db
        .selectFrom('events')
        .select((eb) => eb.fn.max<string | number>('globalPosition').as('p'))
        .executeTakeFirstOrThrow();
      await eventually('the projector past the later fact', async () => (await checkpoint()) >= Number(head.p), pump);
      for (let i = 0; i < 5; i += 1) await pump();
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(receiver.at('/gone').length, 0);
      assert.equal((await projected(endpoint.id, 1)).length, 1);
      assert.equal(
        (await call('first', 'GET', '/api/settings/webhooks')).body.data.some((e) => e.id === endpoint.id),
        false,
      );
    });

    it('rotating a secret signs with both for the grace window', async () => {
      const endpoint = await register('second', '/rotated', ['analysis.stored']);
      const rotated = await call('second', 'POST', `/api/settings/webhooks/${endpoint.id}/rotate-secret`);
      assert.equal(rotated.status, 200);
      const fresh = (rotated.body.data as unknown as { secret: string }).secret;
      assert.notEqual(fresh, endpoint.secret);
      await analysisEnds('second');
      await eventually('the delivery', () => receiver.at('/rotated').length === 1, pump);
      const got = receiver.at('/rotated')[0]!;
      assert.equal((got.headers['webhook-signature'] as string).split(' ').length, 2);
      await verifyWebhook({ payload: got.body, headers: got.headers, secret: fresh });
      await verifyWebhook({ payload: got.body, headers: got.headers, secret: endpoint.secret });
      await call('second', 'DELETE', `/api/settings/webhooks/${endpoint.id}`);
    });

    it('announces timeline jobs that complete or fail, by request id', async () => {
      const endpoint = await register('first', '/timeline', ['timeline.completed', 'timeline.failed']);
      const accountId = accounts.first.userId;
      const answered = await t.timeline.jobs.answerFromStore({
        subject: { caseId: 'SC-TIMELINE-1', cnr: null },
        accountId,
        timeline: null,
      });
      const admitted = await t.timeline.jobs.admitLiveFetch({
        subject: { caseId: 'hc-DLHC010000012024', cnr: 'DLHC010000012024' },
        accountId,
        dailyCap: 100,
        callId: 'req-timeline',
      });
      assert.ok(admitted.ok);
      await t.timeline.jobs.fail(admitted.requestId, 'UPSTREAM_UNAVAILABLE', 'the portal was down');
      await eventually('both deliveries', () => receiver.at('/timeline').length === 2, pump);
      const events = await Promise.all(
        receiver.at('/timeline').map((r) => verifyWebhook({ payload: r.body, headers: r.headers, secret: endpoint.secret })),
      );
      assert.deepEqual(events.map((e) => [e.type, e.data]).sort(), [
        ['timeline.completed', { requestId: answered.requestId, caseId: 'SC-TIMELINE-1' }],
        ['timeline.failed', { requestId: admitted.requestId, caseId: 'hc-DLHC010000012024', errorCode: 'UPSTREAM_UNAVAILABLE' }],
      ]);
      await call('first', 'DELETE', `/api/settings/webhooks/${endpoint.id}`);
    });

    it('needs the session, and the CSRF token to change anything', async () => {
      const body = JSON.stringify({ url: 'https://hooks.example.in/x', eventTypes: ['analysis.stored'] });
      const before = (await call('first', 'GET', '/api/settings/webhooks')).body.data.length;
      const anonymous = await app.request('http://localhost/api/settings/webhooks');
      assert.equal(anonymous.status, 401);
      const forged = await app.request('http://localhost/api/settings/webhooks', {
        method: 'POST',
        headers: { Cookie: accounts.first.cookie, 'Content-Type': 'application/json' },
        body,
      });
      assert.equal(forged.status, 403);
      assert.equal(((await forged.json()) as { code: string }).code, 'CSRF_TOKEN_INVALID');
      const invalid = await call('first', 'POST', '/api/settings/webhooks', {
        url: 'ftp://hooks.example.in/x',
        eventTypes: ['analysis.stored'],
      });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.code, 'VALIDATION_ERROR');
      assert.equal((await call('first', 'GET', '/api/settings/webhooks')).body.data.length, before);
    });

    it('bounds the endpoints of an account', async () => {
      const ids: string[] = [];
      for (;;) {
        const res = await call('first', 'POST', '/api/settings/webhooks', {
          url: 'https://hooks.example.in/x',
          eventTypes: ['analysis.stored'],
        });
        if (res.status !== 201) {
          assert.equal(res.status, 403);
          assert.equal(res.body.code, 'WEBHOOK_ENDPOINT_LIMIT_REACHED');
          break;
        }
        ids.push(res.body.data.id as string);
      }
      assert.equal((await call('first', 'GET', '/api/settings/webhooks')).body.data.length, 10);
      for (const id of ids) await call('first', 'DELETE', `/api/settings/webhooks/${id}`);
    });
  });
}

describe('the webhook sender', () => {
  const receiver = new Receiver();
  let big: Server;
  let bigPort = 0;
  before(async () => {
    await receiver.listen();
    receiver.scripts.set('/moved', [302]);
    big = createServer((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(256 * 1024, 0x61));
    });
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    bigPort = (big.address() as AddressInfo).port;
  });
  after(async () => {
    await receiver.close();
    await new Promise<void>((resolve) => big.close(() => resolve()));
  });
  const options = { timeoutMs: 2_000, connectTimeoutMs: 1_000, maxResponseBytes: 1024, userAgent: 'test' };

  it('refuses loopback by literal address and by a name that resolves to it, sending nothing', async () => {
    const strict = new HttpWebhookSender({ ...options, addresses: 'public' });
    for (const url of [
      `http://127.0.0.1:${String(receiver.port)}/x`,
      `http://[::ffff:127.0.0.1]:${String(receiver.port)}/x`,
      `http://0x7f.1:${String(receiver.port)}/x`,
      `http://0.0.0.0:${String(receiver.port)}/x`,
      `http://localhost:${String(receiver.port)}/x`,
      'http://169.254.169.254/latest/meta-data',
    ]) {
      await assert.rejects(strict.post(url, {}, '{}'), WebhookAddressRefusedError, url);
    }
    assert.equal(receiver.received.length, 0);
  });

  it('connects to the address the guard vetted: a name answered with loopback reaches the receiver only in the development setting', async () => {
    const { resolver, asked } = fakeResolver({ 'hooks.example.in': ['127.0.0.1'] });
    const url = `http://hooks.example.in:${String(receiver.port)}/named`;
    await assert.rejects(
      new HttpWebhookSender({ ...options, addresses: 'public', resolver }).post(url, {}, '{}'),
      WebhookAddressRefusedError,
    );
    assert.equal(receiver.at('/named').length, 0);
    const loose = new HttpWebhookSender({ ...options, addresses: 'public-or-loopback', resolver });
    assert.deepEqual(await loose.post(url, {}, '{}'), { status: 200 });
    assert.equal(receiver.at('/named').length, 1);
    // One resolution per attempt, at connect: there is no earlier answer a rebinding name could swap.
    assert.deepEqual(asked, ['hooks.example.in', 'hooks.example.in']);
  });

  it('even in the development setting, refuses private, link-local and a name with any such address, before any connection', async () => {
    const answers = {
      'mixed.example.in': ['127.0.0.1', '10.0.0.7'],
      'metadata.example.in': ['169.254.169.254'],
      'v6.example.in': ['fe80::1'],
      'mapped.example.in': ['::ffff:192.168.0.1'],
      'ula.example.in': ['fd00::1'],
      'cgnat.example.in': ['100.64.0.1'],
      'nothing.example.in': [],
    };
    const loose = new HttpWebhookSender({ ...options, addresses: 'public-or-loopback', resolver: fakeResolver(answers).resolver });
    const port = String(receiver.port);
    for (const host of Object.keys(answers)) {
      await assert.rejects(loose.post(`http://${host}:${port}/private`, {}, '{}'), WebhookAddressRefusedError, host);
    }
    // Literal private and link-local hosts are refused before a socket is opened.
    for (const host of [
      '10.0.0.1',
      '192.168.1.1',
      '172.16.0.1',
      '169.254.169.254',
      '[fe80::1]',
      '[fd00::1]',
      '[::ffff:10.0.0.1]',
      '0.0.0.0',
      '[::]',
    ]) {
      await assert.rejects(loose.post(`http://${host}:${port}/private`, {}, '{}'), WebhookAddressRefusedError, host);
    }
    assert.equal(receiver.at('/private').length, 0);
  });

  it('answers a redirect with its status instead of following it', async () => {
    const sender = new HttpWebhookSender({ ...options, addresses: 'public-or-loopback' });
    assert.deepEqual(await sender.post(`http://127.0.0.1:${String(receiver.port)}/moved`, {}, '{}'), { status: 302 });
    assert.equal(receiver.at('/moved').length, 1);
  });

  it('abandons an answer larger than the cap', async () => {
    const sender = new HttpWebhookSender({ ...options, addresses: 'public-or-loopback' });
    await assert.rejects(sender.post(`http://127.0.0.1:${String(bigPort)}/`, {}, '{}'), /response cap/);
  });
});
