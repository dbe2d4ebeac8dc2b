/**
 * The security matrix every keyed route must pass, from one helper: no key, malformed,
 * unknown, revoked, expired after grace, rotated within grace (allowed), suspended,
 * billing inactive, deactivated organisation, wrong plan, trial, not provisioned, IP
 * outside the allowlist, and the identity store down (fail closed). Each unknown key comes
 * from an address of its own: failed lookups are throttled per address, and the matrix of
 * many routes in one file must not add up to a refusal it does not test.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { HmacApiKeyCodec } from '../../src/adapters/crypto/api-key-codec.ts';
import type { App } from '../../src/http/app-types.ts';
import type { AccessFixture } from './access-fixture.ts';
import { BASE, KEY_HASH_SECRET, KEY_PREFIXES, TEST_CLIENT_HEADER } from './app.ts';

let guessers = 0;
/** A fresh client address (198.18.0.0/15, the benchmarking range) for each unknown-key case. */
function guesserAddress(): string {
  guessers += 1;
  return `198.18.${Math.floor(guessers / 256) % 256}.${guessers % 256}`;
}

export interface KeyedRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  /** Status of a call that passes the gate (the "rotated within grace" case must reach it). */
  readonly okStatus: number;
  /** Credits the call costs; a priced route is also checked for the 402 (keys.noOrg must hold less). */
  readonly price?: number;
}

export interface MatrixContext {
  readonly app: App;
  readonly fixture: AccessFixture;
  /** The same app wiring over a database that is down. */
  readonly appWithIdentityDown: App;
  /** Spendable credits of a billing account, for priced routes. */
  readonly balanceOf?: (accountId: string) => Promise<number>;
}

async function call(app: App, route: KeyedRoute, headers: Record<string, string>): Promise<Response> {
  return app.request(`${BASE}${route.path}`, {
    method: route.method,
    headers: { ...(route.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(route.body === undefined ? {} : { body: JSON.stringify(route.body) }),
  });
}

async function expectCode(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(res.status, status, `status for ${code}: ${JSON.stringify(body)}`);
  assert.equal(body.code, code);
  assert.equal(body.success, false);
  assert.equal(body.requestId, res.headers.get('x-request-id'));
  return body;
}

export function securityMatrix(route: KeyedRoute, context: () => MatrixContext): void {
  const key = (k: string) => ({ 'X-API-Key': k });
  const cases: [string, (ctx: MatrixContext) => Record<string, string>, number, string][] = [
    ['malformed key', () => key('not-a-key'), 401, 'API_KEY_INVALID_FORMAT'],
    ['revoked key', (ctx) => key(ctx.fixture.keys.revoked), 401, 'API_KEY_REVOKED'],
    ['key expired after its rotation grace', (ctx) => key(ctx.fixture.keys.expired), 401, 'API_KEY_EXPIRED'],
    ['suspended account', (ctx) => key(ctx.fixture.keys.suspended), 403, 'ACCOUNT_SUSPENDED'],
    ['billing inactive', (ctx) => key(ctx.fixture.keys.billingInactive), 403, 'BILLING_INACTIVE'],
    ['deactivated organisation', (ctx) => key(ctx.fixture.keys.deactivatedOrg), 403, 'ORGANIZATION_DEACTIVATED'],
    ['trial account', (ctx) => key(ctx.fixture.keys.trial), 403, 'API_NOT_AVAILABLE_ON_TRIAL'],
    [
      'address outside the organisation allowlist',
      (ctx) => ({ ...key(ctx.fixture.keys.allowlisted), [TEST_CLIENT_HEADER]: '198.51.100.7' }),
      403,
      'IP_NOT_ALLOWED',
    ],
  ];

  it(`${route.method} ${route.path}: no key gives 401 API_KEY_MISSING`, async () => {
    await expectCode(await call(context().app, route, {}), 401, 'API_KEY_MISSING');
  });

  for (const [name, headers, status, code] of cases) {
    it(`${route.method} ${route.path}: ${name} gives ${status} ${code}`, async () => {
      const ctx = context();
      await expectCode(await call(ctx.app, route, headers(ctx)), status, code);
    });
  }

  const price = route.price;
  if (price !== undefined) {
    it(`${route.method} ${route.path}: too few credits gives 402 with required, balance, shortfall and topUpUrl, charging nothing`, async () => {
      const ctx = context();
      if (!ctx.balanceOf) throw new Error('a priced route needs balanceOf in the matrix context');
      const account = ctx.fixture.users.noOrg;
      const before = await ctx.balanceOf(account);
      assert.ok(before < price, 'the fixture account without an organisation must hold less than the price');
      const body = await expectCode(await call(ctx.app, route, key(ctx.fixture.keys.noOrg)), 402, 'INSUFFICIENT_API_CREDITS');
      assert.deepEqual([body.required, body.balance, body.shortfall, typeof body.topUpUrl], [price, before, price - before, 'string']);
      assert.equal(await ctx.balanceOf(account), before);
    });
  }

  it(`${route.method} ${route.path}: a well-formed unknown key gives 401 API_KEY_INVALID`, async () => {
    const minted = await new HmacApiKeyCodec(KEY_PREFIXES, KEY_HASH_SECRET).mint('live');
    const headers = { ...key(minted.plaintext), [TEST_CLIENT_HEADER]: guesserAddress() };
    await expectCode(await call(context().app, route, headers), 401, 'API_KEY_INVALID');
  });

  it(`${route.method} ${route.path}: a wrong plan gets the entitlement refusal with callsToday 0 and maxAllowed 0`, async () => {
    const ctx = context();
    const body = await expectCode(await call(ctx.app, route, key(ctx.fixture.keys.wrongPlan)), 403, 'API_ENTERPRISE_ONLY');
    assert.equal(body.callsToday, 0);
    assert.equal(body.maxAllowed, 0);
  });

  it(`${route.method} ${route.path}: an Enterprise account without API access gets 403 with maxAllowed -1`, async () => {
    const ctx = context();
    const res = await call(ctx.app, route, key(ctx.fixture.keys.notProvisioned));
    assert.equal(res.status, 403);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual([typeof body.error, body.callsToday, body.maxAllowed], ['string', 0, -1]);
  });

  it(`${route.method} ${route.path}: the identity store down fails closed with 503`, async () => {
    const ctx = context();
    await expectCode(await call(ctx.appWithIdentityDown, route, key(ctx.fixture.keys.active)), 503, 'ACCOUNT_STANDING_UNAVAILABLE');
  });

  it(`${route.method} ${route.path}: a key rotated within its grace window still works`, async () => {
    const ctx = context();
    assert.equal((await call(ctx.app, route, key(ctx.fixture.keys.grace))).status, route.okStatus);
  });

  it(`${route.method} ${route.path}: accepts Bearer, and reads X-API-Key first`, async () => {
    const ctx = context();
    assert.equal((await call(ctx.app, route, { Authorization: `Bearer ${ctx.fixture.keys.active}` })).status, route.okStatus);
    const both = await call(ctx.app, route, { 'X-API-Key': ctx.fixture.keys.revoked, Authorization: `Bearer ${ctx.fixture.keys.active}` });
    await expectCode(both, 401, 'API_KEY_REVOKED');
  });

  it(`${route.method} ${route.path}: an allowlisted address passes, IPv4 and IPv6`, async () => {
    const ctx = context();
    for (const address of ['203.0.113.9', '::ffff:203.0.113.10', '2001:db8::17']) {
      const res = await call(ctx.app, route, { ...key(ctx.fixture.keys.allowlisted), [TEST_CLIENT_HEADER]: address });
      assert.equal(res.status, route.okStatus, address);
    }
  });
}
