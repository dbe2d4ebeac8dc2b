/**
 * Fair webhook delivery on the real path: PostgreSQL, the dispatcher, the real Temporal dev
 * server and a worker with few attempt slots, black-hole receivers (loopback TCP servers
 * that accept and never answer) and a real receiver. Accounts aiming their deliveries at
 * black holes must not delay another account's; an account's pending deliveries are capped;
 * an endpoint that keeps failing is disabled with its reason shown, and its owner enables it.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { TemporalWebhookWorkflows } from '../../src/adapters/temporal/webhook-workflows.ts';
import { createWorker } from '../../src/adapters/temporal/workers.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { eventStoreOf } from '../../src/wiring.ts';
import { TASK_QUEUES } from '../../workflows/task-queues.ts';
import { createWebhookActivities } from '../../workflows/activities/webhook-activities.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { buildTestApp, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { BlackHole, queueDelivery } from '../support/webhook-black-hole.ts';
import { NO_TEMPORAL_CLI, startTestTemporal, temporalCli, workflowBundle, type TestTemporal } from '../support/temporal.ts';

const PASSWORD = 'correct horse battery staple';

/** Answers each request with the current status, noting when each path was reached. */
class Receiver {
  status = 200;
  readonly arrivals: { path: string; at: number }[] = [];
  readonly #server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      this.arrivals.push({ path: req.url ?? '/', at: Date.now() });
      res.writeHead(this.status).end();
    });
  });
  port = 0;

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  at(path: string) {
    return this.arrivals.filter((a) => a.path === path);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

async function eventually(what: string, check: () => Promise<boolean> | boolean, step: () => Promise<unknown>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await step();
    await new Promise((r) => setTimeout(r, 50));
  }
}

const skip = temporalCli() ? false : NO_TEMPORAL_CLI;

for (const factory of databases.filter((f) => f.name === 'postgres')) {
  describe(`fair webhook delivery (${factory.name})`, { skip }, () => {
    let database: TestDatabase;
    let temporal: TestTemporal;
    let t: TestApp;
    let projector: ProjectorRunner;
    let stopWorker: () => Promise<void> = async () => undefined;
    const holes = [new BlackHole(), new BlackHole(), new BlackHole()];
    const receiver = new Receiver();

    async function pump(): Promise<void> {
      await projector.catchUp();
      await t.webhooks.dispatcher.dispatch();
    }

    async function endpoint(accountId: string, url: string): Promise<string> {
      const registered = await t.webhooks.endpoints.register(
        accountId,
        { url, eventTypes: ['analysis.stored'], mode: 'live' },
        `req-${url}`,
      );
      assert.ok(registered.ok);
      return registered.value.id;
    }

    /** A dashboard session (its own login form, CSRF cookie and token). */
    async function dashboardSession(email: string): Promise<string> {
      const form = await t.app.request('http://localhost/dashboard/login');
      const loginCookie = /dashboard_login=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')?.[1];
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
      assert.ok(loginCookie && csrf);
      const res = await t.app.request('http://localhost/dashboard/login', {
        method: 'POST',
        headers: { Cookie: `dashboard_login=${loginCookie}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD, next: '/dashboard/webhooks' }).toString(),
      });
      const session = /dashboard_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
      assert.ok(session, 'a dashboard session');
      return `dashboard_session=${session}`;
    }

    before(async () => {
      database = await factory.open();
      temporal = await startTestTemporal();
      const workflows = new TemporalWebhookWorkflows(temporal.runtime.client, {
        attemptTimeoutMs: 10_000,
        retry: { initialIntervalMs: 100, backoffCoefficient: 2, maximumIntervalMs: 400, maximumAttempts: 30 },
      });
      t = buildTestApp({
        db: database.db,
        webhookWorkflows: workflows,
        webhookSettings: {
          WEBHOOK_TIMEOUT_MS: '5000',
          WEBHOOK_ACCOUNT_IN_FLIGHT: '1',
          WEBHOOK_ACCOUNT_PENDING_CAP: '2',
          WEBHOOK_DISABLE_AFTER_FAILURES: '3',
          WEBHOOK_DISABLE_AFTER_MS: '0',
        },
      });
      projector = new ProjectorRunner(database.db, eventStoreOf(database.db), t.webhooks.outbox, { now: () => new Date() });
      await projector.catchUp();
      // Four slots, as the service's workers had: fairness must come from the dispatcher, not from spare slots.
      const worker = await createWorker(
        temporal.runtime,
        TASK_QUEUES.webhooks,
        createWebhookActivities({ deliveries: t.webhooks.deliveries }),
        {
          dataConverter: temporal.dataConverter,
          bundle: await workflowBundle(),
          maxConcurrentActivities: 4,
        },
      );
      const running = worker.run();
      stopWorker = async () => {
        worker.shutdown();
        await running;
      };
      for (const hole of holes) await hole.listen();
      await receiver.listen();
    });

    after(async () => {
      // Black holes first: attempts hanging on them end, so the worker can stop.
      for (const hole of holes) await hole.close();
      await receiver.close();
      await stopWorker();
      await temporal.close();
      await database.close();
    });

    it("three accounts' backlogs aimed at black holes do not delay another account's delivery", async () => {
      const noisy = ['noisy-1', 'noisy-2', 'noisy-3'];
      for (const [i, accountId] of noisy.entries()) {
        const id = await endpoint(accountId, `http://127.0.0.1:${String(holes[i]!.port)}/hole`);
        for (let n = 0; n < 10; n += 1) await queueDelivery(database.db, accountId, id, 'fair');
      }
      await t.webhooks.dispatcher.dispatch();
      // Their attempts now hang on the black holes; then another account's fact is recorded.
      await new Promise((r) => setTimeout(r, 300));
      const quiet = await endpoint('quiet', `http://127.0.0.1:${String(receiver.port)}/quiet`);
      const queuedAt = Date.now();
      await queueDelivery(database.db, 'quiet', quiet, 'fair');
      await eventually('the quiet account’s delivery', () => receiver.at('/quiet').length === 1, pump, 30_000);
      const took = receiver.at('/quiet')[0]!.at - queuedAt;
      assert.ok(took < 2_000, `delivered after ${String(took)} ms`);
      // Each noisy account has one workflow running at most; the rest of its backlog waits unstarted.
      const running = await database.db
        .selectFrom('webhookDeliveries')
        .select(['accountId', (eb) => eb.fn.countAll<string>().as('n')])
        .where('accountId', 'in', noisy)
        .where('workflowStarted', '=', true)
        .where('status', '=', 'pending')
        .groupBy('accountId')
        .execute();
      for (const row of running) assert.ok(Number(row.n) <= 1, `${row.accountId} has ${row.n} running`);
    });

    it('caps pending deliveries (dropped beyond), disables an endpoint that keeps failing with its reason shown, and its owner enables it', async () => {
      const email = `owner.${factory.name}@fair.example`;
      const user = await t.application.accounts.registerUser(enterpriseUser(email, { password: PASSWORD }), { kind: 'operator' });
      assert.ok(user.ok);
      const accountId = user.value.userId;
      const login = await t.app.request('http://localhost/api/settings/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      const csrf = ((await login.json()) as { data: { csrfToken: string } }).data.csrfToken;
      const cookie = /^session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
      assert.ok(cookie);
      const call = async (method: string, path: string) => {
        const res = await t.app.request(`http://localhost${path}`, {
          method,
          headers: { Cookie: `session=${cookie}`, 'X-CSRF-Token': csrf },
        });
        return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> & Record<string, unknown>[] } };
      };
      const id = await endpoint(accountId, `http://127.0.0.1:${String(receiver.port)}/owner`);
      receiver.status = 500;
      let caseNo = 0;
      const analysisStored = async () => {
        caseNo += 1;
        const caseId = `SC-FAIR-${String(caseNo)}`;
        const admitted = await t.analysis.runs.admit({
          subject: { kind: 'single', caseId, caseNumberNormalised: `civil appeal ${String(caseNo)} of 2025` },
          accountId,
          requestId: `req-${caseId}`,
          price: 0,
          payment: { kind: 'charge' },
          allowRemoteFetch: false,
          remoteFetchPlanned: false,
          concurrencyCap: null,
        });
        assert.ok(admitted.ok);
        await t.analysis.runs.store(admitted.runId, { model: 'test', caseIds: [caseId], analysis: { summary: 'x' } });
      };
      for (let i = 0; i < 3; i += 1) await analysisStored();
      const rows = () => database.db.selectFrom('webhookDeliveries').select(['status']).where('endpointId', '=', id).execute();
      await eventually(
        'three deliveries recorded',
        async () => (await rows()).length === 3,
        () => projector.catchUp(),
      );
      assert.deepEqual((await rows()).map((r) => r.status).sort(), ['dropped', 'pending', 'pending']);
      const listed = await call('GET', `/api/settings/webhooks/${id}/deliveries`);
      assert.deepEqual(listed.body.data.map((d) => d.status).sort(), ['dropped', 'pending', 'pending']);

      // Every attempt answers 500: after three in a row the endpoint is disabled and its pending deliveries cancelled.
      await eventually(
        'the endpoint disabled',
        async () =>
          (await database.db.selectFrom('webhookEndpoints').select('disabledAt').where('endpointId', '=', id).executeTakeFirst())
            ?.disabledAt != null,
        pump,
      );
      assert.deepEqual((await rows()).map((r) => r.status).sort(), ['cancelled', 'cancelled', 'dropped']);
      const endpoints = await call('GET', '/api/settings/webhooks');
      const shown = endpoints.body.data.find((e) => e.id === id) as { disabled: { at: string; reason: string } | null };
      assert.match(shown.disabled?.reason ?? '', /^3 consecutive failed attempts over /);
      const page = await (
        await t.app.request('http://localhost/dashboard/webhooks', { headers: { Cookie: await dashboardSession(email) } })
      ).text();
      assert.match(page, /data-testid="endpoint-disabled"/);
      assert.ok(page.includes(shown.disabled!.reason));
      assert.match(page, new RegExp(`action="/dashboard/webhooks/${id}/enable"`));

      // Disabled, it hears of nothing new.
      await analysisStored();
      await projector.catchUp();
      await pump();
      assert.equal((await rows()).length, 3);

      // Its owner enables it: the next fact is delivered.
      receiver.status = 200;
      const enabled = await call('POST', `/api/settings/webhooks/${id}/enable`);
      assert.equal(enabled.status, 200);
      assert.equal(enabled.body.data.disabled, null);
      const before = receiver.at('/owner').length;
      await analysisStored();
      await eventually('a delivery after enabling', () => receiver.at('/owner').length > before && receiver.status === 200, pump);
      await eventually('the delivered mark', async () => (await rows()).some((r) => r.status === 'delivered'), pump);
    });
  });
}
