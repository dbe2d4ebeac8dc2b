/**
 * Black box: the API as deployed behind a TLS-terminating load balancer. Two instances on
 * one PostgreSQL database and one Redis, both trusting the proxy (TRUSTED_PROXIES), sit
 * behind HAProxy (test/support/load-balancer.ts); a third instance that does not trust it
 * sits behind a second one. Clients call over HTTPS with the certificate verified, each
 * from a loopback source address of its own, so the service must find the real client
 * behind the proxy: for the IP allowlist, the distinct-keys-per-address cap and the
 * per-address rate limit, counted in Redis across both instances, and for the scheme
 * (the session cookie is Secure only when the trusted proxy says https).
 * Needs TEST_DATABASE_URL and TEST_REDIS_URL (CI sets them) and haproxy (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { databases, type TestDatabase } from '../support/databases.ts';
import { httpsFetch, startLoadBalancer, type HttpsFetchInit, type LoadBalancer } from '../support/load-balancer.ts';
import { startService, type RunningService } from '../support/service-process.ts';

const API = '/api/v1/prod';
const ADMIN_TOKEN = 'proxy-e2e-admin-token-0123456789';
const PASSWORD = 'proxy-e2e-password';
/** Low, so a few calls reach the per-address limit of the public routes (and of logins). */
const PUBLIC_PER_MINUTE = 6;
const postgresFactory = databases.find((d) => d.name === 'postgres');
const redisUrl = process.env.TEST_REDIS_URL;
const missing = !postgresFactory || !redisUrl ? 'TEST_DATABASE_URL and TEST_REDIS_URL not set' : false;

type Json = Record<string, unknown>;

/**
 * Loopback client addresses of this run only: the shared Redis keeps per-address counts for
 * a minute (rate limits) and a day (keys per address), so a rerun must not find its own.
 */
const clients = (() => {
  const used = new Set(['127.0.0.1']);
  const octet = () => 1 + Math.floor(Math.random() * 254);
  return (): string => {
    for (;;) {
      const address = `127.${octet()}.${octet()}.${octet()}`;
      if (!used.has(address)) {
        used.add(address);
        return address;
      }
    }
  };
})();

/** A plain-HTTP call straight to an instance (no proxy), from a chosen loopback address. */
function direct(service: RunningService, path: string, init: { from: string; headers?: Record<string, string> }): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, service.url), { headers: init.headers, localAddress: init.from, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0 })));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end();
  });
}

const codeOf = async (res: Response): Promise<unknown> => ((await res.json()) as Json).code;

describe('the API behind a TLS-terminating load balancer', { skip: missing, timeout: 300_000 }, () => {
  let db: TestDatabase | undefined;
  /** In front of `trusting`, whose instances trust its address. */
  let lb: LoadBalancer;
  /** In front of `untrusting` alone. */
  let lbUntrusted: LoadBalancer;
  let trusting: RunningService[] = [];
  let untrusting: RunningService | undefined;

  const admin = async (path: string, body: unknown, method = 'POST'): Promise<Json> => {
    const res = await fetch(`${trusting[0]!.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
    return ((await res.json()) as { data: Json }).data;
  };

  /** A user (in an organisation when given) with `keys` live keys. */
  const account = async (options: {
    organizationId?: string;
    limitOverrides?: Json;
    keys?: number;
  }): Promise<{ email: string; keys: string[] }> => {
    const email = `proxy-${Math.random().toString(36).slice(2, 10)}@lawfirm.example`;
    const user = await admin('/admin/users', {
      email,
      name: 'Behind the proxy',
      tier: 'enterprise',
      password: PASSWORD,
      ...(options.organizationId ? { organizationId: options.organizationId } : {}),
      ...(options.limitOverrides ? { limitOverrides: options.limitOverrides } : {}),
    });
    const keys: string[] = [];
    for (let i = 0; i < (options.keys ?? 1); i += 1) {
      keys.push((await admin(`/admin/users/${String(user.userId)}/keys`, { name: `key ${i}` })).fullKey as string);
    }
    return { email, keys };
  };

  const organization = async (allowlist: string[]): Promise<string> =>
    (await admin('/admin/organizations', { name: `Proxy ${Math.random().toString(36).slice(2, 8)}`, allowlist })).organizationId as string;

  const through = (balancer: LoadBalancer, path: string, from: string, init: Omit<HttpsFetchInit, 'localAddress'> = {}) =>
    httpsFetch(balancer, `${API}${path}`, { ...init, localAddress: from });

  const withKey = (key: string, headers: Record<string, string> = {}) => ({ headers: { 'X-API-Key': key, ...headers } });

  /** Requests each backend of `balancer` has been sent, in order. */
  const served = async (balancer: LoadBalancer) => (await balancer.backendStates()).map((s) => s.served);

  before(async () => {
    const database = await postgresFactory!.open();
    db = database;
    // The proxies first: the instances are told the public URL clients reach them by.
    lb = await startLoadBalancer({ backends: [] });
    lbUntrusted = await startLoadBalancer({ backends: [] });
    const shared = {
      DATABASE_URL: database.url!,
      REDIS_URL: redisUrl!,
      KEY_HASH_SECRET: 'proxy-e2e-key-hash-secret-of-32-chars-or-more',
      ADMIN_TOKEN,
      AUTO_INGEST: 'false',
      PUBLIC_RATE_LIMIT_PER_MINUTE: String(PUBLIC_PER_MINUTE),
      // Nothing here runs a workflow: no worker bundling its workflows (seconds of CPU) in each instance.
      TEMPORAL_WORKER_IN_PROCESS: 'false',
    };
    const behindLb = { ...shared, TRUSTED_PROXIES: '127.0.0.1/32', PUBLIC_BASE_URL: `${lb.url}${API}` };
    const started = await Promise.allSettled([
      startService('node', behindLb),
      startService('node', behindLb),
      startService('node', { ...shared, PUBLIC_BASE_URL: `${lbUntrusted.url}${API}` }),
    ]);
    const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    if (running.length < started.length) {
      await Promise.all(running.map((s) => s.stop()));
      throw (started.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason;
    }
    trusting = running.slice(0, 2);
    untrusting = running[2];
    const backend = (s: RunningService) => ({ host: '127.0.0.1', port: Number(new URL(s.url).port) });
    await lb.setBackends(trusting.map(backend));
    await lbUntrusted.setBackends([backend(untrusting!)]);
    await Promise.all([lb.waitUntilAllUp(), lbUntrusted.waitUntilAllUp()]);
  });
  after(async () => {
    await Promise.all([lb, lbUntrusted].filter(Boolean).map((b) => b.stop()));
    await Promise.all([...trusting, ...(untrusting ? [untrusting] : [])].map((s) => s.stop()));
    await db?.close();
  });

  it('serves HTTPS with a certificate the client verifies, and refuses plain HTTP on the same port', async () => {
    const res = await through(lb, '/health', clients());
    assert.equal(res.status, 200);
    assert.deepEqual(
      (await lb.backendStates()).map((s) => s.status),
      ['UP', 'UP'],
    );
    const plain = await fetch(`http://127.0.0.1:${lb.port}${API}/health`).then(
      (r) => r.status,
      () => 'refused',
    );
    assert.ok(plain === 'refused' || plain === 400, `plain HTTP got ${plain}`);
  });

  it('admits and refuses by the allowlist on the real client address, across both instances; a forged X-Forwarded-For changes nothing', async () => {
    const allowed = clients();
    const other = clients();
    const { keys } = await account({ organizationId: await organization([allowed]) });
    const key = keys[0]!;
    const before = await served(lb);
    for (let i = 0; i < 4; i += 1) assert.equal((await through(lb, '/me', allowed, withKey(key))).status, 200);
    const after = await served(lb);
    assert.ok(
      after.every((n, i) => n > before[i]!),
      `both instances answered: ${before.join(',')} -> ${after.join(',')}`,
    );

    const refused = await through(lb, '/me', other, withKey(key));
    assert.equal(refused.status, 403);
    assert.equal(await codeOf(refused), 'IP_NOT_ALLOWED');
    // The proxy appends the socket's address after the client's claim; the service takes the right-most hop it does not trust.
    for (let i = 0; i < 2; i += 1) {
      const forged = await through(lb, '/me', other, withKey(key, { 'X-Forwarded-For': allowed }));
      assert.equal(forged.status, 403);
    }
    // Going round the proxy does not help either: that socket is not a trusted proxy's.
    const bypass = await direct(trusting[0]!, `${API}/me`, { from: other, headers: { 'X-API-Key': key, 'X-Forwarded-For': allowed } });
    assert.equal(bypass.status, 403);
  });

  it('an instance that does not trust the proxy sees every client as the proxy', async () => {
    const client = clients();
    const { keys: onlyClient } = await account({ organizationId: await organization([client]) });
    const { keys: onlyProxy } = await account({ organizationId: await organization(['127.0.0.1/32']) });
    // Untrusting: the client's own address is not what it sees; the proxy's is.
    assert.equal((await through(lbUntrusted, '/me', client, withKey(onlyClient[0]!))).status, 403);
    assert.equal((await through(lbUntrusted, '/me', client, withKey(onlyProxy[0]!))).status, 200);
    // Trusting: the other way round.
    assert.equal((await through(lb, '/me', client, withKey(onlyClient[0]!))).status, 200);
    assert.equal((await through(lb, '/me', client, withKey(onlyProxy[0]!))).status, 403);
  });

  it('caps distinct keys per client address, counted across both instances', async () => {
    const crowded = clients();
    const elsewhere = clients();
    const { keys } = await account({ limitOverrides: { distinctKeysPerIpPerDay: 2 }, keys: 3 });
    const before = await served(lb);
    // Round robin: the first two keys land on different instances.
    assert.equal((await through(lb, '/me', crowded, withKey(keys[0]!))).status, 200);
    assert.equal((await through(lb, '/me', crowded, withKey(keys[1]!))).status, 200);
    const after = await served(lb);
    assert.deepEqual(
      after.map((n, i) => n - before[i]!),
      [1, 1],
    );
    for (let i = 0; i < 2; i += 1) {
      const third = await through(lb, '/me', crowded, withKey(keys[2]!, { 'X-Forwarded-For': elsewhere }));
      assert.equal(third.status, 429);
      assert.equal(await codeOf(third), 'TOO_MANY_KEYS_FROM_IP');
    }
    assert.equal((await through(lb, '/me', elsewhere, withKey(keys[2]!))).status, 200);
    // The first two still pass where they were seen.
    assert.equal((await through(lb, '/me', crowded, withKey(keys[0]!))).status, 200);
  });

  it('counts the per-address limit of public routes by the client address, across both instances', async () => {
    // The limiter's windows are whole minutes of Redis's clock (this machine's): start the
    // burst where the next 10 s stay in one window, or a late request meets a fresh count.
    const leftInMinute = 60_000 - (Date.now() % 60_000);
    if (leftInMinute < 10_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 50));
    const busy = clients();
    const quiet = clients();
    const remaining: string[] = [];
    for (let i = 0; i < PUBLIC_PER_MINUTE; i += 1) {
      const res = await through(lb, '/reference/courts', busy);
      assert.equal(res.status, 200);
      remaining.push(res.headers.get('ratelimit-remaining') ?? '');
    }
    assert.deepEqual(
      remaining,
      Array.from({ length: PUBLIC_PER_MINUTE }, (_, i) => String(PUBLIC_PER_MINUTE - 1 - i)),
    );
    const over = await through(lb, '/reference/courts', busy);
    assert.equal(over.status, 429);
    // Another client is counted apart, whatever address it claims.
    const other = await through(lb, '/reference/courts', quiet, { headers: { 'X-Forwarded-For': busy } });
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('ratelimit-remaining'), String(PUBLIC_PER_MINUTE - 1));
    // And one that claims to be someone else does not escape its own count.
    assert.equal((await through(lb, '/reference/courts', busy, { headers: { 'X-Forwarded-For': quiet } })).status, 429);
  });

  it("counts a key's rate limit in Redis across both instances", async () => {
    const { keys } = await account({ limitOverrides: { requestsPerMinute: 3 } });
    const from = clients();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await through(lb, '/me', from, withKey(keys[0]!))).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  it('tells the service the client used HTTPS: the session cookie is Secure only through the trusted proxy', async () => {
    const { email } = await account({});
    const login = (balancer: LoadBalancer, headers: Record<string, string> = {}) =>
      httpsFetch(balancer, '/api/settings/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ email, password: PASSWORD }),
        localAddress: clients(),
      });
    const cookie = async (res: Response) => {
      assert.equal(res.status, 200, await res.clone().text());
      return res.headers.get('set-cookie') ?? '';
    };
    // The proxy sets X-Forwarded-Proto itself, over whatever the client sent.
    assert.match(await cookie(await login(lb, { 'X-Forwarded-Proto': 'http' })), /;\s*Secure/i);
    assert.doesNotMatch(await cookie(await login(lbUntrusted, { 'X-Forwarded-Proto': 'https' })), /;\s*Secure/i);
  });

  it('keeps redirects on the address the client used (relative), so they stay on HTTPS', async () => {
    const res = await httpsFetch(lb, '/dashboard/keys', { localAddress: clients() });
    assert.equal(res.status, 303);
    assert.match(res.headers.get('location') ?? '', /^\/dashboard\/login\?next=/);
  });

  it('does not take a relayed call for a call from this machine (metrics stay closed through the proxy)', async () => {
    assert.equal((await httpsFetch(lbUntrusted, '/ops/metrics', { localAddress: clients() })).status, 404);
    assert.equal((await httpsFetch(lb, '/ops/metrics', { localAddress: clients() })).status, 404);
    // The same instance answers a caller on this machine that no proxy relays.
    assert.equal((await fetch(`${untrusting!.url}/ops/metrics`)).status, 200);
  });
});
