/**
 * docker-compose.yml as a deployment that would run, checked without a Docker engine: each
 * container of our image gets its environment as compose would give it (`${VAR:?}` and
 * `${VAR:-}` substituted, the secrets scripts/compose-secrets.sh writes mounted where the
 * `*_FILE` settings point) and must load through the real src/config.ts, the API instances
 * and the worker agreeing on what both read; the API trusts the proxy and only it; grace
 * periods outlast the drains; every service restarts and checks its health; no password is
 * in the file; only the proxy is published beyond loopback (the Temporal Web UI has no login). The proxy's config (deploy/haproxy.cfg) is run with the distribution's
 * haproxy in front of two loopback servers, and the meili-key job's script against the real
 * Meilisearch, whose scoped key must then open, shadow and swap the service's index.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Meilisearch } from 'meilisearch';
import { parse } from 'yaml';
import { MeilisearchSearchIndex } from '../../src/adapters/meilisearch/search-index.ts';
import { localDocumentsDir } from '../../src/adapters/storage/open-document-storage.ts';
import { CLOSE_BOUND_MS, EXIT_GRACE_MS } from '../../src/composition/exit-guard.ts';
import { testModeDatabaseUrl, testModeDataDir } from '../../src/composition/test-mode-adapters.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { allowedBy } from '../../src/domain/access/cidr.ts';
import { clientAddressResolver } from '../../src/http/client-address.ts';
import { dropIndexes, meilisearchForSuite, meilisearchMissing } from '../support/meilisearch.ts';
import { freePort } from '../support/service-process.ts';

type Secret = string | { source: string; target?: string };
interface Service {
  readonly image?: string;
  readonly build?: unknown;
  readonly command?: readonly string[] | string;
  readonly entrypoint?: readonly string[] | string;
  readonly restart?: string;
  readonly stop_grace_period?: string;
  readonly environment?: Record<string, string | number>;
  readonly secrets?: readonly Secret[];
  readonly volumes?: readonly string[];
  readonly networks?: readonly string[] | Record<string, { ipv4_address?: string } | null>;
  readonly depends_on?: Record<string, { condition?: string }>;
  readonly healthcheck?: { test?: unknown };
  readonly ports?: readonly (string | number | { target: number; published?: string | number; host_ip?: string })[];
}
interface Compose {
  readonly services: Record<string, Service>;
  readonly secrets: Record<string, { file: string }>;
  readonly networks: Record<string, { ipam?: { config?: { subnet: string }[] } }>;
}

const COMPOSE_TEXT = readFileSync('docker-compose.yml', 'utf8');
const COMPOSE = parse(COMPOSE_TEXT, { merge: true }) as Compose;
const HAPROXY_CFG = readFileSync('deploy/haproxy.cfg', 'utf8');
const PUBLIC_HOST = 'api.example.in';

/** Compose's interpolation: `$$`, `${VAR}`, `${VAR:-default}`, `${VAR:?message}` (unset or empty fails). */
function interpolate(value: string, variables: Readonly<Record<string, string>>): string {
  return value.replace(/\$\$|\$\{(\w+)(?:(:[-?])([^}]*))?\}/g, (whole, name: string, op?: string, arg?: string) => {
    if (whole === '$$') return '$';
    const set = variables[name];
    const present = set !== undefined && set !== '';
    if (op === ':?' && !present) throw new Error(`compose refuses: ${name}: ${arg ?? ''}`);
    return present ? set : op === ':-' ? (arg ?? '') : '';
  });
}

/** The services that run our image (built from the Dockerfile). */
const APP_SERVICES = Object.entries(COMPOSE.services).filter(([, s]) => s.build !== undefined);
const API_SERVICES = APP_SERVICES.filter(([, s]) => s.command === undefined).map(([name]) => name);

function networksOf(service: Service): Record<string, { ipv4_address?: string } | null> {
  const networks = service.networks ?? ['default'];
  if (!Array.isArray(networks)) return networks as Record<string, { ipv4_address?: string } | null>;
  return Object.fromEntries((networks as readonly string[]).map((n) => [n, null]));
}

/** Seconds of a compose duration such as `45s` or `1m30s`. */
function seconds(duration: string | undefined): number {
  if (duration === undefined) return 10; // Docker's default
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  assert.ok(match && duration !== '', `unreadable duration ${duration}`);
  return Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
}

/** The container's environment, with every `*_FILE` pointing where the test mounted that file. */
function containerEnvironment(service: Service, variables: Readonly<Record<string, string>>, mounts: ReadonlyMap<string, string>) {
  const env: Record<string, string> = {};
  for (const [name, raw] of Object.entries(service.environment ?? {})) {
    const value = interpolate(String(raw), variables);
    if (!name.endsWith('_FILE')) {
      env[name] = value;
      continue;
    }
    const mount = [...mounts.keys()].find((inside) => value === inside || value.startsWith(`${inside}/`));
    assert.ok(mount, `${name}=${value}: no secret or volume of the service is mounted there`);
    env[name] = mounts.get(mount)! + value.slice(mount.length);
  }
  return env;
}

let secretsDir: string;
let volumesDir: string;

/** Container path → host path of each secret and named volume the service mounts. */
function mountsOf(service: Service): Map<string, string> {
  const mounts = new Map<string, string>();
  for (const secret of service.secrets ?? []) {
    const { source, target } = typeof secret === 'string' ? { source: secret, target: undefined } : secret;
    const file = COMPOSE.secrets[source]?.file;
    assert.ok(file?.startsWith('./secrets/') === true, `secret ${source} is not a file under ./secrets`);
    const inside = target?.startsWith('/') ? target : posix.join('/run/secrets', target ?? source);
    mounts.set(inside, join(secretsDir, file.slice('./secrets/'.length)));
  }
  for (const volume of service.volumes ?? []) {
    const [source = '', inside = ''] = volume.split(':');
    if (/^[\w-]+$/.test(source)) mounts.set(inside, join(volumesDir, source));
  }
  return mounts;
}

function loadService(name: string, variables: Readonly<Record<string, string>>): Config {
  const service = COMPOSE.services[name]!;
  return loadConfig(containerEnvironment(service, variables, mountsOf(service)));
}

/** A request context carrying only the X-Forwarded-For header, which is all the resolver reads. */
function request(forwardedFor: string): Parameters<ReturnType<typeof clientAddressResolver>>[0] {
  return { req: { header: () => forwardedFor } } as unknown as Parameters<ReturnType<typeof clientAddressResolver>>[0];
}

/** What an operator sets beside the secrets; everything optional set, so the comparison means something. */
const CONFIGURED: Readonly<Record<string, string>> = {
  PUBLIC_HOST,
  COURT_PORTAL_URL: 'https://portal.example.in/hc',
  LLM_URL: 'https://llm.example.in/v1',
  LLM_MODEL: 'judgment-reader',
  LLM_API_KEY: 'sk-test-llm',
  EMBEDDINGS_URL: 'https://embed.example.in/v1',
  EMBEDDINGS_MODEL: 'embedder',
  EMBEDDINGS_DIMENSIONS: '512',
};

/** What both the API instances and the worker read and must agree on. */
const SHARED: readonly (keyof Config)[] = [
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_CODEC_KEYS',
  'KEY_HASH_SECRET',
  'DOCUMENT_URL_SECRET',
  'PUBLIC_BASE_URL',
  'COURT_PORTAL_URL',
  'LLM_URL',
  'LLM_MODEL',
  'LLM_API_KEY',
  'EMBEDDINGS_URL',
  'EMBEDDINGS_MODEL',
  'EMBEDDINGS_DIMENSIONS',
  'METRICS_TOKEN',
  'TEMPORAL_WORKER_IN_PROCESS',
];

before(() => {
  const root = mkdtempSync(join(tmpdir(), 'compose-deployment-'));
  secretsDir = join(root, 'secrets');
  volumesDir = join(root, 'volumes');
  const made = spawnSync('sh', ['scripts/compose-secrets.sh', secretsDir], { encoding: 'utf8', env: { ...process.env, PUBLIC_HOST } });
  assert.equal(made.status, 0, made.stderr);
  // What the meili-key job leaves in its volume (the job itself runs in the last suite).
  mkdirSync(join(volumesDir, 'meili-key'), { recursive: true });
  writeFileSync(join(volumesDir, 'meili-key', 'api-key'), `${'a'.repeat(64)}\n`);
});
after(() => rmSync(dirname(secretsDir), { recursive: true, force: true }));

describe('docker-compose.yml: each container of our image loads its configuration', () => {
  it('runs two API instances and a worker apart from them', () => {
    assert.equal(API_SERVICES.length, 2, `API services: ${API_SERVICES.join(', ')}`);
    const worker = APP_SERVICES.filter(([, s]) => s.command !== undefined);
    assert.deepEqual(
      worker.map(([, s]) => s.command),
      [['node', '--import', 'tsx', 'workflows/worker/main.ts']],
    );
  });

  it('loads with only PUBLIC_HOST set: optional settings passed through empty are unset, not refused', () => {
    for (const [name] of APP_SERVICES) {
      const config = loadService(name, { PUBLIC_HOST });
      assert.equal(config.LLM_MODEL, undefined, name);
      assert.equal(config.COURT_PORTAL_URL, undefined, name);
      assert.equal(config.EMBEDDINGS_URL, undefined, name);
    }
  });

  it('refuses to start compose without PUBLIC_HOST', () => {
    assert.throws(() => loadService(API_SERVICES[0]!, {}), /compose refuses: PUBLIC_HOST/);
  });

  it('gives the API instances and the worker the same settings where both read them, secrets from the files', () => {
    const configs = APP_SERVICES.map(([name]) => [name, loadService(name, CONFIGURED)] as const);
    const [first, ...rest] = configs;
    for (const key of SHARED) {
      assert.notEqual(first![1][key], undefined, `${key} is unset in ${first![0]}`);
      for (const [name, config] of rest) assert.deepEqual(config[key], first![1][key], `${key}: ${name} differs from ${first![0]}`);
    }
    const config = first![1];
    assert.equal(config.DATABASE_URL, readFileSync(join(secretsDir, 'database_url'), 'utf8').trim());
    assert.equal(config.COURT_PORTAL_URL, CONFIGURED.COURT_PORTAL_URL);
    assert.equal(config.LLM_MODEL, CONFIGURED.LLM_MODEL);
    assert.equal(config.PUBLIC_BASE_URL, `https://${PUBLIC_HOST}/api/v1/prod`);
    assert.equal(config.TEMPORAL_WORKER_IN_PROCESS, false);
  });

  it('gives the API its own services, and the database password the same as the PostgreSQL container and Temporal get', () => {
    for (const name of API_SERVICES) {
      const config = loadService(name, CONFIGURED);
      assert.ok(config.REDIS_URL && config.CLICKHOUSE_URL && config.MEILI_URL && config.MEILI_API_KEY && config.ADMIN_TOKEN, name);
    }
    const password = readFileSync(join(secretsDir, 'postgres_password'), 'utf8').trim();
    const database = new URL(loadService(API_SERVICES[0]!, CONFIGURED).DATABASE_URL!);
    assert.equal(database.password, password);
    assert.equal(database.hostname, 'postgres');
    const clickhouse = new URL(loadService(API_SERVICES[0]!, CONFIGURED).CLICKHOUSE_URL!);
    assert.equal(clickhouse.password, readFileSync(join(secretsDir, 'clickhouse_password'), 'utf8').trim());
    for (const name of ['postgres', 'temporal', 'temporal-schema']) {
      assert.ok(
        mountsOf(COMPOSE.services[name]!).has('/run/secrets/postgres_password'),
        `${name} does not mount the postgres_password secret`,
      );
    }
  });

  it("lets the API create test mode's database beside the live one: it connects as the superuser the image makes", () => {
    const postgres = COMPOSE.services.postgres!.environment!;
    for (const name of API_SERVICES) {
      const config = loadService(name, CONFIGURED);
      assert.equal(config.TEST_MODE_DATABASE_URL, undefined, name);
      const live = new URL(config.DATABASE_URL!);
      assert.equal(decodeURIComponent(live.username), String(postgres.POSTGRES_USER), `${name} is not PostgreSQL's superuser`);
      const testMode = new URL(testModeDatabaseUrl(config.DATABASE_URL!));
      assert.equal(testMode.pathname, `/${String(postgres.POSTGRES_DB)}_test_mode`);
      assert.equal(testMode.host, live.host);
    }
  });

  it('makes the API instances interchangeable: the same volumes, the live and the test-mode PDFs on shared ones', () => {
    const [first, ...rest] = API_SERVICES.map((name) => [name, COMPOSE.services[name]!.volumes ?? []] as const);
    for (const [name, volumes] of rest) assert.deepEqual(volumes, first![1], `${name} mounts other volumes than ${first![0]}`);
    const namedAt = (name: string, inside: string) =>
      COMPOSE.services[name]!.volumes?.map((v) => v.split(':')).find(([source = '', at]) => at === inside && /^[\w-]+$/.test(source))?.[0];
    const { DATA_DIR } = loadService(API_SERVICES[0]!, CONFIGURED);
    assert.equal(
      namedAt(API_SERVICES[0]!, DATA_DIR),
      undefined,
      'DATA_DIR itself is a volume: an instance would keep state there, or share what is its own',
    );
    const live = namedAt(API_SERVICES[0]!, localDocumentsDir(DATA_DIR));
    const testMode = namedAt(API_SERVICES[0]!, localDocumentsDir(testModeDataDir(DATA_DIR)));
    assert.ok(live && testMode && live !== testMode, `live PDFs on ${String(live)}, test mode's on ${String(testMode)}`);
    // The worker makes live documents; test mode's workers run in the API instances only.
    assert.equal(namedAt('worker', localDocumentsDir(DATA_DIR)), live);
  });

  it('publishes only the proxy on every interface; the Temporal Web UI (no login of its own) and the ops port on loopback only', () => {
    /** Each published port as [host address, host port, container port]; compose's short form without an address binds every interface. */
    const published = (service: Service): [string, string, string][] =>
      (service.ports ?? []).map((port) => {
        if (typeof port === 'object') return [port.host_ip ?? '0.0.0.0', String(port.published ?? port.target), String(port.target)];
        const parts = String(port).split(':');
        return parts.length === 3 ? [parts[0]!, parts[1]!, parts[2]!] : ['0.0.0.0', parts[0]!, parts.at(-1)!];
      });
    const everywhere = Object.entries(COMPOSE.services).flatMap(([name, service]) =>
      published(service)
        .filter(([address]) => address !== '127.0.0.1')
        .map(([, host]) => `${name}:${host}`),
    );
    assert.deepEqual(everywhere.sort(), ['proxy:443', 'proxy:80']);
    assert.deepEqual(published(COMPOSE.services['temporal-ui']!), [['127.0.0.1', '8080', '8080']]);
    // Neither the workflow engine's frontend nor any store is reachable from the host at all.
    for (const name of ['temporal', 'postgres', 'redis', 'clickhouse', 'meilisearch'])
      assert.deepEqual(published(COMPOSE.services[name]!), [], name);
  });

  it('trusts the proxy, and only it, to name the client', () => {
    const proxy = COMPOSE.services.proxy!;
    const [[network, settings]] = Object.entries(networksOf(proxy)) as [[string, { ipv4_address?: string } | null]];
    const proxyAddress = settings?.ipv4_address;
    assert.ok(proxyAddress, 'the proxy has no fixed address');
    const subnet = COMPOSE.networks[network]?.ipam?.config?.[0]?.subnet;
    assert.ok(subnet && allowedBy([subnet], proxyAddress), `${proxyAddress} is outside ${network}'s subnet ${String(subnet)}`);
    for (const name of API_SERVICES) {
      assert.ok(network in networksOf(COMPOSE.services[name]!), `${name} is not on ${network}`);
      const config = loadService(name, CONFIGURED);
      assert.ok(allowedBy(config.TRUSTED_PROXIES, proxyAddress), `${name} does not trust ${proxyAddress}`);
      assert.ok(!allowedBy(config.TRUSTED_PROXIES, '172.31.250.3'), `${name} trusts other containers of ${network}`);
      const ask = (socket: string, forwarded: string) => clientAddressResolver(() => socket, config.TRUSTED_PROXIES)(request(forwarded));
      assert.equal(ask(proxyAddress, '6.6.6.6, 203.0.113.7'), '203.0.113.7');
      assert.equal(ask('172.31.250.9', '6.6.6.6'), '172.31.250.9');
    }
    assert.ok(!(network in networksOf(COMPOSE.services.worker!)), 'the worker is on the proxy network');
    const backends = [...HAPROXY_CFG.matchAll(/^\s+server (\S+) (\S+):3000\b/gm)].map((m) => m[2]);
    for (const name of API_SERVICES) assert.ok(backends.includes(name), `haproxy.cfg does not send traffic to ${name}`);
  });
});

describe('docker-compose.yml: stopping, restarting, health and secrets', () => {
  it('lets the API drain and close before Docker kills it, and the worker stop within its bound', () => {
    for (const name of API_SERVICES) {
      const config = loadService(name, CONFIGURED);
      const needed = config.SHUTDOWN_DRAIN_SECONDS + (CLOSE_BOUND_MS + EXIT_GRACE_MS) / 1000;
      const grace = seconds(COMPOSE.services[name]!.stop_grace_period);
      assert.ok(grace > needed, `${name}: stop_grace_period ${String(grace)} s, drain and close take up to ${String(needed)} s`);
    }
    // The worker apart has no requests to drain: its exit guard ends it within the close bound and the grace after it.
    assert.ok(seconds(COMPOSE.services.worker!.stop_grace_period) > (CLOSE_BOUND_MS + EXIT_GRACE_MS) / 1000);
    const hardStop = /hard-stop-after (\d+)s/.exec(HAPROXY_CFG)?.[1];
    assert.ok(hardStop && seconds(COMPOSE.services.proxy!.stop_grace_period) > Number(hardStop));
    assert.ok(Number(hardStop) > loadService(API_SERVICES[0]!, CONFIGURED).SHUTDOWN_DRAIN_SECONDS, 'the proxy cuts the drain short');
  });

  it('restarts every service, checks the health of every long-running one, and retries one-shot jobs on failure', () => {
    const oneShot = new Set(
      Object.values(COMPOSE.services).flatMap((s) =>
        Object.entries(s.depends_on ?? {})
          .filter(([, d]) => d.condition === 'service_completed_successfully')
          .map(([name]) => name),
      ),
    );
    for (const [name, service] of Object.entries(COMPOSE.services)) {
      if (oneShot.has(name)) {
        assert.match(service.restart ?? '', /^on-failure/, `${name}: a one-shot job`);
        continue;
      }
      assert.ok(['unless-stopped', 'always'].includes(service.restart ?? ''), `${name}: restart ${String(service.restart)}`);
      assert.ok(service.healthcheck?.test, `${name}: no health check`);
    }
  });

  it('holds no password, key or token: secrets come from files, optional ones default to empty', () => {
    const secretName = /(PASSWORD|PWD|SECRET|TOKEN|_KEY|_KEYS|MASTER_KEY)$/;
    for (const [name, service] of Object.entries(COMPOSE.services)) {
      for (const [variable, raw] of Object.entries(service.environment ?? {})) {
        const value = String(raw);
        if (secretName.test(variable)) {
          assert.match(value, /^\$\{\w+:-\}$/, `${name}: ${variable} is given a value in the file`);
        }
        assert.doesNotMatch(value, /:\/\/[^/@\s]*:[^/@\s]*@/, `${name}: ${variable} carries a password in a URL`);
      }
    }
    assert.doesNotMatch(COMPOSE_TEXT, /change-me/i);
    assert.ok(readFileSync('.gitignore', 'utf8').split('\n').includes('/secrets/'), 'secrets/ is not ignored by git');
    assert.ok(readFileSync('.dockerignore', 'utf8').split('\n').includes('secrets'), 'secrets/ would be copied into the image');
  });

  it('the secrets script keeps what it wrote, so a second run does not change a password PostgreSQL was created with', () => {
    const before = readFileSync(join(secretsDir, 'postgres_password'), 'utf8');
    const again = spawnSync('sh', ['scripts/compose-secrets.sh', secretsDir], { encoding: 'utf8', env: { ...process.env, PUBLIC_HOST } });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(readFileSync(join(secretsDir, 'postgres_password'), 'utf8'), before);
  });
});

/** One loopback stand-in for an API instance: answers 200 and records what reached it. */
interface Backend {
  readonly name: string;
  readonly port: number;
  readonly seen: { path: string; headers: IncomingHttpHeaders }[];
  readonly server: Server;
}

async function backend(name: string): Promise<Backend> {
  const port = await freePort();
  const seen: Backend['seen'] = [];
  const server = createServer((req, res) => {
    if (!req.url?.endsWith('/health')) seen.push({ path: req.url ?? '', headers: req.headers });
    res.end(name);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { name, port, seen, server };
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

function call(url: string, headers: Record<string, string> = {}, ca?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(url, { headers, ...(ca ? { ca, servername: PUBLIC_HOST } : {}) }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('deploy/haproxy.cfg, run in front of two loopback servers', () => {
  let haproxy: ChildProcess;
  let backends: Backend[];
  const ports = { http: 0, https: 0, ops: 0, health: 0 };
  let cert: string;

  before(async () => {
    backends = [await backend('api-1'), await backend('api-2')];
    for (const key of Object.keys(ports) as (keyof typeof ports)[]) ports[key] = await freePort();
    cert = readFileSync(join(secretsDir, 'tls.pem'), 'utf8');
    const replacements: [string, string][] = [
      ['bind :8080\n', `bind 127.0.0.1:${String(ports.http)}\n`],
      ['bind :8443 ssl crt /run/secrets/tls.pem', `bind 127.0.0.1:${String(ports.https)} ssl crt ${join(secretsDir, 'tls.pem')}`],
      ['bind :3000\n', `bind 127.0.0.1:${String(ports.ops)}\n`],
      ['bind 127.0.0.1:8405', `bind 127.0.0.1:${String(ports.health)}`],
      [' api-1:3000', ` 127.0.0.1:${String(backends[0]!.port)}`],
      [' api-2:3000', ` 127.0.0.1:${String(backends[1]!.port)}`],
    ];
    let config = HAPROXY_CFG;
    for (const [from, to] of replacements) {
      assert.ok(config.includes(from), `haproxy.cfg no longer has ${from.trim()}: update this test`);
      config = config.replaceAll(from, to);
    }
    const file = join(dirname(secretsDir), 'haproxy.cfg');
    writeFileSync(file, config);
    const checked = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
    if (checked.error) throw new Error(`haproxy is not installed (bash .ci/run installs it): ${checked.error.message}`);
    assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
    haproxy = spawn('haproxy', ['-db', '-f', file], { stdio: 'ignore' });
    const deadline = Date.now() + 15_000;
    for (;;) {
      const up = await call(`http://127.0.0.1:${String(ports.health)}/healthz`).then(
        (a) => a.status === 200,
        () => false,
      );
      if (up) break;
      assert.ok(Date.now() < deadline, 'haproxy did not come up');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  after(async () => {
    if (haproxy.exitCode === null) {
      const exited = new Promise((r) => haproxy.once('exit', r));
      haproxy.kill('SIGTERM');
      await exited;
    }
    await Promise.all(backends.map((b) => new Promise((r) => b.server.close(r))));
  });

  const clear = () => backends.forEach((b) => (b.seen.length = 0));
  const https = (path: string, headers: Record<string, string> = {}) =>
    call(`https://127.0.0.1:${String(ports.https)}${path}`, headers, cert);

  it('serves HTTPS with the certificate of the secret and sends plain HTTP there', async () => {
    const answer = await https('/api/v1/prod/coverage');
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers['strict-transport-security']), /max-age=/);
    const plain = await call(`http://127.0.0.1:${String(ports.http)}/api/v1/prod/coverage`);
    assert.equal(plain.status, 301);
    assert.match(String(plain.headers.location), /^https:\/\/.*\/api\/v1\/prod\/coverage$/);
  });

  it('spreads live calls over both instances, replacing what the client claims with what it saw', async () => {
    clear();
    const forged = { 'X-Forwarded-For': '6.6.6.6', 'X-Forwarded-Proto': 'http', Forwarded: 'for=6.6.6.6', 'X-API-Key': 'crk_live-abc' };
    for (let i = 0; i < 4; i += 1) assert.equal((await https('/api/v1/prod/cases', forged)).status, 200);
    assert.deepEqual(
      backends.map((b) => b.seen.length),
      [2, 2],
    );
    const { TRUSTED_PROXIES } = loadService(API_SERVICES[0]!, CONFIGURED);
    const proxyAddress = (networksOf(COMPOSE.services.proxy!).edge ?? {}).ipv4_address!;
    const resolve = clientAddressResolver(() => proxyAddress, TRUSTED_PROXIES);
    for (const { headers } of backends.flatMap((b) => b.seen)) {
      assert.equal(headers['x-forwarded-proto'], 'https');
      assert.equal(headers.forwarded, undefined);
      const forwardedFor = String(headers['x-forwarded-for']);
      // The API, behind the proxy's compose address, finds this test's own address: not the forged one.
      assert.equal(resolve(request(forwardedFor)), '127.0.0.1');
    }
  });

  it('spreads test-mode calls over both instances like live ones: test keys, as a header or a bearer token, and test-mode links', async () => {
    clear();
    const kinds: [string, Record<string, string>][] = [
      ['/api/v1/prod/cases', { 'X-API-Key': 'crk_test-abc' }],
      ['/api/v1/prod/cases', { Authorization: 'Bearer crk_test-abc' }],
      ['/test-mode/api/v1/prod/documents/x.pdf', {}],
    ];
    // Round-robin over an odd number of kinds: each kind's two calls reach both instances.
    for (let i = 0; i < 2; i += 1) for (const [path, headers] of kinds) assert.equal((await https(path, headers)).status, 200);
    assert.deepEqual(
      backends.map((b) => b.seen.length),
      [3, 3],
    );
    for (const b of backends) {
      assert.ok(
        b.seen.some((s) => s.headers['x-api-key'] === 'crk_test-abc'),
        `${b.name} got no test key`,
      );
      assert.ok(
        b.seen.some((s) => s.headers.authorization === 'Bearer crk_test-abc'),
        `${b.name} got no test bearer token`,
      );
      assert.ok(
        b.seen.some((s) => s.path.startsWith('/test-mode/')),
        `${b.name} got no test-mode link`,
      );
    }
  });

  it('answers its health check while an instance is up, and relays the ops port as plain HTTP to either instance', async () => {
    assert.equal((await call(`http://127.0.0.1:${String(ports.health)}/healthz`)).status, 200);
    clear();
    for (let i = 0; i < 2; i += 1) assert.equal((await call(`http://127.0.0.1:${String(ports.ops)}/ops/temporal-codec/login`)).status, 200);
    assert.deepEqual(
      backends.map((b) => b.seen.length),
      [1, 1],
    );
    for (const { headers } of backends.flatMap((b) => b.seen)) assert.equal(headers['x-forwarded-proto'], 'http');
  });
});

describe('the meili-key job, run against the real Meilisearch', { skip: meilisearchMissing }, () => {
  let meili: Awaited<ReturnType<typeof meilisearchForSuite>>;
  const uid = `compose${randomUUID().slice(0, 8)}`;
  const keyUid = randomUUID();

  before(async () => {
    meili = await meilisearchForSuite();
  });
  after(async () => {
    const master = new Meilisearch({ host: meili.url, ...(meili.apiKey ? { apiKey: meili.apiKey } : {}) });
    await master.deleteKey(keyUid).catch(() => undefined);
    await dropIndexes(meili.url, meili.apiKey, uid);
    await meili.close();
  });

  it('makes a key that opens, shadows and swaps the service index and can do nothing else, and a second run finds it', async () => {
    const job = COMPOSE.services['meili-key']!;
    const [script] = job.command as string[];
    const env = Object.fromEntries(Object.entries(job.environment ?? {}).map(([k, v]) => [k, String(v)]));
    // The API reads the key where this job writes it: the same volume, mounted in both.
    const volume = (service: Service, name: string) => service.volumes?.find((v) => v.startsWith(`${name}:`))?.split(':')[1];
    const apiEnv = COMPOSE.services[API_SERVICES[0]!]!.environment!;
    assert.equal(posix.dirname(String(env.KEY_FILE)), volume(job, 'meili-key'));
    assert.equal(
      String(apiEnv.MEILI_API_KEY_FILE).replace(volume(COMPOSE.services[API_SERVICES[0]!]!, 'meili-key')!, ''),
      String(env.KEY_FILE).replace(volume(job, 'meili-key')!, ''),
    );
    const indexes = String(env.KEY_INDEXES);
    const serviceIndex = loadService(API_SERVICES[0]!, CONFIGURED).MEILI_INDEX;
    for (const index of [serviceIndex, `${serviceIndex}_next`, `${serviceIndex}_schema`]) {
      assert.ok(index.startsWith(indexes.replace(/\*$/, '')), `${indexes} does not cover ${index}`);
    }

    const dir = join(dirname(secretsDir), 'meili-job');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'master'), `${meili.apiKey ?? ''}\n`);
    const run = () =>
      spawnSync('sh', ['-ec', interpolate(script!, {})], {
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          MEILI_URL: meili.url,
          MASTER_KEY_FILE: join(dir, 'master'),
          KEY_UID: keyUid,
          KEY_INDEXES: String(env.KEY_INDEXES),
          KEY_FILE: join(dir, 'api-key'),
          KEY_OWNER: `${String(process.getuid?.() ?? 0)}:${String(process.getgid?.() ?? 0)}`,
        },
      });
    const first = run();
    assert.equal(first.status, 0, first.stderr);
    const key = readFileSync(join(dir, 'api-key'), 'utf8').trim();
    assert.match(key, /^[0-9a-f]{64}$/);
    const second = run();
    assert.equal(second.status, 0, second.stderr);
    assert.equal(readFileSync(join(dir, 'api-key'), 'utf8').trim(), key);
    assert.notEqual(key, meili.apiKey);

    const index = await MeilisearchSearchIndex.open({ url: meili.url, apiKey: key, indexUid: uid });
    const shadow = await index.createShadow();
    await index.swapIn(shadow);
    const scoped = new Meilisearch({ host: meili.url, apiKey: key });
    assert.equal((await scoped.index(uid).search('anything')).hits.length, 0);
    // Nothing beyond the service's own work: no keys (the master key's power), no dumps.
    await assert.rejects(() => scoped.getKeys(), /forbidden|invalid|not authorized|403/i);
    await assert.rejects(() => scoped.createDump(), /forbidden|invalid|not authorized|403/i);
  });
});
