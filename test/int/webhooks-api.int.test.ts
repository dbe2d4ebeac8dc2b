/**
 * Webhook endpoints managed with an API key (/webhooks/…), and "send test event" and
 * "resend delivery" for keys and dashboard sessions, through the real app and gate on the
 * embedded default and PostgreSQL. A key reaches its own account's endpoints only (another's
 * id is 404), an organisation's are its admins', and the address guard refuses non-public
 * URLs at registration (checked on the address, nothing sent). Deliveries are attempted with
 * the real sender against a receiver on loopback.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { openPglite } from '../../src/db/open.ts';
import { verifyWebhook } from '../../sdk/src/webhooks.ts';
import { createAccessFixture, keyedUser, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { securityMatrix } from '../support/security-matrix.ts';

interface Answer {
  status: number;
  body: { success?: boolean; code?: string; data: Record<string, unknown> & Record<string, unknown>[] };
}

for (const factory of databases) {
  describe(`webhooks with an API key (${factory.name})`, () => {
    let database: TestDatabase;
    let t: TestApp;
    let down: TestApp;
    let fixture: AccessFixture;
    const clock = new SettableClock(new Date('2026-11-29T10:00:00Z'));
    const keys = { first: '', second: '' };
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    let server: Server;
    let port = 0;

    async function call(key: string, method: string, path: string, body?: unknown): Promise<Answer> {
      const res = await t.app.request(`${BASE}${path}`, {
        method,
        headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Answer['body'] };
    }

    before(async () => {
      database = await factory.open();
      t = buildTestApp({ db: database.db, clock });
      await t.application.invalidator.poll();
      fixture = await createAccessFixture(t.application.accounts, clock);
      keys.first = (await keyedUser(t.application.accounts, 'hooks-first')).key;
      keys.second = (await keyedUser(t.application.accounts, 'hooks-second')).key;
      const closed = await openPglite(undefined);
      await closed.close();
      down = buildTestApp({ db: closed.db, clock });
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
          res.writeHead(200).end('ok');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await database.close();
    });

    const matrix = () => ({ app: t.app, fixture, appWithIdentityDown: down.app });
    securityMatrix({ method: 'GET', path: '/webhooks/endpoints', okStatus: 200 }, matrix);
    securityMatrix(
      {
        method: 'POST',
        path: '/webhooks/endpoints',
        body: { url: 'https://hooks.example.in/matrix', eventTypes: ['analysis.stored'] },
        okStatus: 201,
      },
      matrix,
    );
    securityMatrix({ method: 'DELETE', path: '/webhooks/endpoints/whe_matrix', okStatus: 404 }, matrix);
    securityMatrix({ method: 'POST', path: '/webhooks/endpoints/whe_matrix/enable', okStatus: 404 }, matrix);
    securityMatrix({ method: 'POST', path: '/webhooks/endpoints/whe_matrix/rotate-secret', okStatus: 404 }, matrix);
    securityMatrix({ method: 'GET', path: '/webhooks/endpoints/whe_matrix/deliveries', okStatus: 404 }, matrix);
    securityMatrix({ method: 'POST', path: '/webhooks/endpoints/whe_matrix/test', body: {}, okStatus: 404 }, matrix);
    securityMatrix({ method: 'POST', path: '/webhooks/deliveries/msg_matrix/resend', okStatus: 404 }, matrix);

    it('registers, lists, rotates and deletes an endpoint with a key; the secret is shown once', async () => {
      const created = await call(keys.first, 'POST', '/webhooks/endpoints', {
        url: `http://127.0.0.1:${String(port)}/a`,
        eventTypes: ['timeline.completed'],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.data.id as string;
      assert.match(created.body.data.secret as string, /^whsec_/);
      assert.equal(created.body.data.mode, 'live');
      const listed = await call(keys.first, 'GET', '/webhooks/endpoints');
      assert.deepEqual(
        listed.body.data.map((e) => e.id),
        [id],
      );
      assert.equal('secret' in listed.body.data[0]!, false);
      const rotated = await call(keys.first, 'POST', `/webhooks/endpoints/${id}/rotate-secret`);
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.data.secret, created.body.data.secret);
      const deleted = await call(keys.first, 'DELETE', `/webhooks/endpoints/${id}`);
      assert.equal(deleted.status, 200);
      assert.deepEqual((await call(keys.first, 'GET', '/webhooks/endpoints')).body.data, []);
    });

    it("never touches another account's endpoint or delivery: 404 as for an id that never was", async () => {
      const created = await call(keys.first, 'POST', '/webhooks/endpoints', {
        url: `http://127.0.0.1:${String(port)}/mine`,
        eventTypes: ['analysis.stored'],
      });
      const id = created.body.data.id as string;
      const test = await call(keys.first, 'POST', `/webhooks/endpoints/${id}/test`, {});
      assert.equal(test.status, 202);
      const deliveryId = test.body.data.id as string;
      for (const [method, path] of [
        ['DELETE', `/webhooks/endpoints/${id}`],
        ['POST', `/webhooks/endpoints/${id}/enable`],
        ['POST', `/webhooks/endpoints/${id}/rotate-secret`],
        ['GET', `/webhooks/endpoints/${id}/deliveries`],
        ['POST', `/webhooks/endpoints/${id}/test`],
        ['POST', `/webhooks/deliveries/${deliveryId}/resend`],
      ] as const) {
        const res = await call(keys.second, method, path, method === 'POST' && path.endsWith('/test') ? {} : undefined);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.match(res.body.code ?? '', /^WEBHOOK_(ENDPOINT|DELIVERY)_NOT_FOUND$/);
      }
      assert.deepEqual((await call(keys.second, 'GET', '/webhooks/endpoints')).body.data, []);
      // Still there, untouched, for its owner.
      assert.equal((await call(keys.first, 'GET', `/webhooks/endpoints/${id}/deliveries`)).body.data.length, 1);
      await call(keys.first, 'DELETE', `/webhooks/endpoints/${id}`);
    });

    it("leaves an organisation's endpoints to its admins", async () => {
      const member = await call(fixture.keys.member, 'GET', '/webhooks/endpoints');
      assert.equal(member.status, 403);
      assert.equal(member.body.code, 'ORG_ADMIN_REQUIRED');
      const admin = await call(fixture.keys.active, 'GET', '/webhooks/endpoints');
      assert.equal(admin.status, 200);
    });

    it('refuses, at the address check, URLs naming private, link-local or metadata addresses (nothing is sent)', async () => {
      for (const url of [
        'https://10.0.0.9/hook',
        'http://169.254.169.254/latest/meta-data',
        'https://192.168.1.1/x',
        'https://[fd00::1]/x',
      ]) {
        const res = await call(keys.first, 'POST', '/webhooks/endpoints', { url, eventTypes: ['analysis.stored'] });
        assert.equal(res.status, 400, url);
        assert.equal(res.body.code, 'VALIDATION_ERROR');
        assert.match(JSON.stringify(res.body), /loopback, private or link-local/);
      }
      assert.deepEqual((await call(keys.first, 'GET', '/webhooks/endpoints')).body.data, []);
    });

    it('sends a signed test event, and resends a delivery as a new delivery of the same event', async () => {
      const created = await call(keys.first, 'POST', '/webhooks/endpoints', {
        url: `http://127.0.0.1:${String(port)}/test`,
        eventTypes: ['timeline.completed', 'timeline.failed'],
      });
      const id = created.body.data.id as string;
      const secret = created.body.data.secret as string;
      const queued = await call(keys.first, 'POST', `/webhooks/endpoints/${id}/test`, { type: 'timeline.failed' });
      assert.equal(queued.status, 202);
      assert.equal(queued.body.data.status, 'pending');
      const deliveryId = queued.body.data.id as string;
      // What the delivery workflow's activity does, with the real sender, to the loopback receiver.
      const before = received.length;
      assert.equal((await t.webhooks.deliveries.attempt(deliveryId)).kind, 'delivered');
      const got = received[before]!;
      const event = await verifyWebhook({ payload: got.body, headers: got.headers, secret, now: clock.now() });
      assert.equal(event.type, 'timeline.failed');
      assert.deepEqual(event.data, { requestId: 'req_test', caseId: 'SC-TEST-0001', errorCode: 'UPSTREAM_UNAVAILABLE' });
      const sent = JSON.parse(got.body) as { id: string; object: string };
      assert.match(sent.id, /^evt_test_/);
      assert.equal(sent.object, 'event');
      // Not a fact of the account: GET /events does not list it.
      const events = await call(keys.first, 'GET', '/events');
      assert.ok(!events.body.data.some((e) => e.id === sent.id));

      const resent = await call(keys.first, 'POST', `/webhooks/deliveries/${deliveryId}/resend`);
      assert.equal(resent.status, 202);
      const again = resent.body.data.id as string;
      assert.notEqual(again, deliveryId);
      assert.equal((await t.webhooks.deliveries.attempt(again)).kind, 'delivered');
      const second = received[before + 1]!;
      assert.equal(second.headers['webhook-id'], again);
      assert.equal(second.body, got.body, 'the same event object, byte for byte');
      await verifyWebhook({ payload: second.body, headers: second.headers, secret, now: clock.now() });
      const history = await call(keys.first, 'GET', `/webhooks/endpoints/${id}/deliveries`);
      assert.deepEqual(history.body.data.map((d) => d.status).sort(), ['delivered', 'delivered']);

      // A disabled endpoint sends nothing until enabled.
      await database.db
        .updateTable('webhookEndpoints')
        .set({ disabledAt: clock.now(), disabledReason: 'test' })
        .where('endpointId', '=', id)
        .execute();
      const refused = await call(keys.first, 'POST', `/webhooks/endpoints/${id}/test`, {});
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'WEBHOOK_ENDPOINT_DISABLED');
      assert.equal((await call(keys.first, 'POST', `/webhooks/deliveries/${deliveryId}/resend`)).status, 409);
      const enabled = await call(keys.first, 'POST', `/webhooks/endpoints/${id}/enable`);
      assert.equal(enabled.status, 200);
      assert.equal(enabled.body.data.disabled, null);
      assert.equal((await call(keys.first, 'POST', `/webhooks/endpoints/${id}/test`)).status, 202);
      await call(keys.first, 'DELETE', `/webhooks/endpoints/${id}`);
      // Its endpoint deleted, a delivery can no longer be resent.
      assert.equal((await call(keys.first, 'POST', `/webhooks/deliveries/${deliveryId}/resend`)).status, 404);
    });
  });
}
