/**
 * Guessing API keys and the admin token, through the real app, on each rate-limit store
 * present (in process always, Redis with TEST_REDIS_URL): failed key lookups and wrong admin
 * tokens are counted per client address; past the allowance the address gets 429
 * RATE_LIMITED in the rate-limit shape with Retry-After, other addresses are unaffected, keys
 * already seen to exist still pass (a new key waits for the window), refusals of real keys
 * (revoked) are not counted, the count is shared by instances, and the window resets.
 *
 * Redis counts in windows on its own clock, so on Redis the app runs on the real clock with
 * a three-second window and each test starts at the beginning of one; in process, a settable
 * clock and the service's one-minute window.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import { connectRedis, type RedisConnection } from '../../src/adapters/redis/connection.ts';
import { RedisRateLimiter } from '../../src/adapters/redis/rate-limits.ts';
import type { AccountsService } from '../../src/application/accounts/accounts-service.ts';
import type { Clock } from '../../src/ports/clock.ts';
import type { RateLimiter } from '../../src/ports/rate-limiter.ts';
import { HmacApiKeyCodec } from '../../src/adapters/crypto/api-key-codec.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, KEY_HASH_SECRET, KEY_PREFIXES, SettableClock, TEST_CLIENT_HEADER, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const operator = { kind: 'operator' } as const;
const KEY_FAILURES = 4;
const TOKEN_FAILURES = 3;
const ADMIN_TOKEN = 'admin-token-for-the-guessing-test';
const codec = new HmacApiKeyCodec(KEY_PREFIXES, KEY_HASH_SECRET);

interface Store {
  readonly name: string;
  readonly clock: Clock;
  readonly windowMs: number;
  /** One limiter per store: apps built over it share their counts, as instances share Redis. */
  readonly limiter: RateLimiter;
  /** Moves to the start of the next window (the clock, or real time on Redis). */
  nextWindow(): Promise<void>;
  close(): Promise<void>;
}

function memoryStore(): Store {
  const clock = new SettableClock(new Date('2026-11-26T10:00:05Z'));
  return {
    name: 'memory',
    clock,
    windowMs: 60_000,
    limiter: new MemoryRateLimiter(clock),
    nextWindow: async () => clock.set(new Date(Math.floor(clock.now().getTime() / 60_000) * 60_000 + 60_000)),
    close: async () => undefined,
  };
}

async function redisStore(url: string): Promise<Store> {
  const clock: Clock = { now: () => new Date() };
  const connection: RedisConnection = await connectRedis(url);
  const windowMs = 3_000;
  return {
    name: 'redis',
    clock,
    windowMs,
    limiter: new RedisRateLimiter(connection, clock, `test:${Date.now()}:${Math.random()}:rl:`),
    // Redis shares this machine's clock; a little past the boundary, so the burst has the whole window.
    nextWindow: () => new Promise((resolve) => setTimeout(resolve, windowMs - (Date.now() % windowMs) + 30)),
    close: () => connection.close(),
  };
}

const redisUrl = process.env.TEST_REDIS_URL;
const stores: { name: string; open: () => Promise<Store> }[] = [
  { name: 'memory', open: async () => memoryStore() },
  ...(redisUrl ? [{ name: 'redis', open: () => redisStore(redisUrl) }] : []),
];

async function newKey(accounts: AccountsService): Promise<string> {
  const email = `guessing.${Date.now()}.${Math.random().toString(36).slice(2)}@lawfirm.example`;
  const user = await accounts.registerUser(enterpriseUser(email), operator);
  assert.ok(user.ok);
  const key = await accounts.createKey(user.value.userId, 'k', operator);
  assert.ok(key.ok);
  return key.value.fullKey;
}

let addresses = 0;
/** A client address no other test uses. */
function freshAddress(): string {
  addresses += 1;
  return `192.0.2.${addresses}`;
}

async function expectThrottled(res: Response, store: Store): Promise<void> {
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(res.status, 429, JSON.stringify(body));
  assert.equal('success' in body, false, 'the rate-limit layer answers a bare object');
  assert.equal(body.code, 'RATE_LIMITED');
  assert.equal(typeof body.error, 'string');
  assert.equal(body.message, body.error);
  assert.equal(typeof body.retryAfter, 'number');
  const retryAfter = body.retryAfter as number;
  assert.ok(retryAfter >= 1 && retryAfter <= store.windowMs / 1000, `retryAfter ${retryAfter}`);
  assert.equal(res.headers.get('retry-after'), String(retryAfter));
  const resetIn = Date.parse(body.resetTime as string) - store.clock.now().getTime();
  assert.ok(resetIn > 0 && resetIn <= retryAfter * 1000, `resetTime ${String(body.resetTime)}`);
}

let database: TestDatabase;
before(async () => {
  database = await databases[0]!.open();
});
after(async () => {
  await database.close();
});

for (const { name, open } of stores) {
  describe(`failed attempts at keys and the admin token, counted on ${name}`, () => {
    let store: Store;
    let test: TestApp;
    const build = () =>
      buildTestApp({
        db: database.db,
        clock: store.clock,
        limiter: store.limiter,
        adminToken: ADMIN_TOKEN,
        failedAttempts: { keys: KEY_FAILURES, adminTokens: TOKEN_FAILURES, windowMs: store.windowMs },
      });

    before(async () => {
      store = await open();
      test = build();
      await test.application.invalidator.poll();
    });
    after(() => store.close());

    const me = (app: TestApp, key: string, address: string) =>
      app.app.request(`${BASE}/me`, { headers: { 'X-API-Key': key, [TEST_CLIENT_HEADER]: address } });
    const guess = async () => (await codec.mint('live')).plaintext;

    it(`refuses the attempt after ${KEY_FAILURES} failed keys with 429 in the rate-limit shape; other addresses are unaffected`, async () => {
      const [attacker, neighbour] = [freshAddress(), freshAddress()];
      const valid = await newKey(test.application.accounts);
      await store.nextWindow();
      // Unknown keys and mistyped ones (bad checksum) both count.
      for (let i = 0; i < KEY_FAILURES; i += 1) {
        const key = i % 2 === 0 ? await guess() : `${(await guess()).slice(0, -4)}AAAA`;
        const res = await me(test, key, attacker);
        assert.equal(res.status, 401);
        assert.equal(((await res.json()) as { code: string }).code, 'API_KEY_INVALID');
      }
      await expectThrottled(await me(test, await guess(), attacker), store);
      assert.equal((await me(test, await guess(), neighbour)).status, 401);
      assert.equal((await me(test, valid, neighbour)).status, 200);
    });

    it('lets a throttled address use keys seen before, also after an invalidation; a new key waits for the window', async () => {
      const office = freshAddress();
      const [colleague, newcomer] = [await newKey(test.application.accounts), await newKey(test.application.accounts)];
      await test.application.invalidator.poll();
      await store.nextWindow();
      assert.equal((await me(test, colleague, office)).status, 200);
      for (let i = 0; i < KEY_FAILURES; i += 1) assert.equal((await me(test, await guess(), office)).status, 401);
      await expectThrottled(await me(test, await guess(), office), store);
      assert.equal((await me(test, colleague, office)).status, 200, 'verified and cached');
      // Any account event makes the key cache stale; the colleague's key is still known, so it is looked up again.
      await newKey(test.application.accounts);
      await test.application.invalidator.poll();
      assert.equal((await me(test, colleague, office)).status, 200, 'known, looked up again');
      // A key this instance has never seen needs a lookup: refused like a guess until the window ends.
      await expectThrottled(await me(test, newcomer, office), store);
      await store.nextWindow();
      assert.equal((await me(test, newcomer, office)).status, 200);
      assert.equal((await me(test, await guess(), office)).status, 401, 'a fresh allowance');
    });

    it('does not count refusals of real keys (revoked)', async () => {
      const address = freshAddress();
      const email = `revoked.${Date.now()}@lawfirm.example`;
      const user = await test.application.accounts.registerUser(enterpriseUser(email), operator);
      assert.ok(user.ok);
      const key = await test.application.accounts.createKey(user.value.userId, 'old', operator);
      assert.ok(key.ok);
      assert.ok((await test.application.accounts.revokeKey(key.value.id, operator)).ok);
      await test.application.invalidator.poll();
      await store.nextWindow();
      for (let i = 0; i < KEY_FAILURES + 2; i += 1) {
        const res = await me(test, key.value.fullKey, address);
        assert.equal(((await res.json()) as { code: string }).code, 'API_KEY_REVOKED');
      }
      assert.equal((await me(test, await guess(), address)).status, 401);
    });

    it('shares the count between instances: another instance refuses after its own first failure', async () => {
      const address = freshAddress();
      const other = build();
      const valid = await newKey(test.application.accounts);
      await store.nextWindow();
      for (let i = 0; i < KEY_FAILURES; i += 1) assert.equal((await me(test, await guess(), address)).status, 401);
      await expectThrottled(await me(test, await guess(), address), store);
      assert.equal((await me(other, await guess(), address)).status, 401, 'one lookup before it learns the count');
      await expectThrottled(await me(other, await guess(), address), store);
      await expectThrottled(await me(other, valid, address), store);
    });

    it(`refuses every admin token, the right one too, after ${TOKEN_FAILURES} wrong ones; bare probes do not count`, async () => {
      const [attacker, operatorDesk, prober] = [freshAddress(), freshAddress(), freshAddress()];
      const admin = (address: string, token?: string) =>
        test.app.request('/admin/no-such-thing', {
          headers: { [TEST_CLIENT_HEADER]: address, ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }) },
        });
      await store.nextWindow();
      for (let i = 0; i < TOKEN_FAILURES; i += 1) {
        const res = await admin(attacker, `${ADMIN_TOKEN}-${i}`);
        assert.equal(res.status, 401);
        assert.equal(((await res.json()) as { code: string }).code, 'ADMIN_UNAUTHORIZED');
      }
      const refused = await admin(attacker, ADMIN_TOKEN);
      assert.equal(refused.headers.get('www-authenticate'), null);
      await expectThrottled(refused, store);
      assert.equal((await admin(operatorDesk, ADMIN_TOKEN)).status, 404, 'past the gate: an unknown admin path');
      for (let i = 0; i < TOKEN_FAILURES + 2; i += 1) assert.equal((await admin(prober)).status, 401);
      assert.equal((await admin(prober, ADMIN_TOKEN)).status, 404);
      await store.nextWindow();
      assert.equal((await admin(attacker, ADMIN_TOKEN)).status, 404);
    });
  });
}
