/**
 * `court-records dev seed`: the quickstart's one command after `npm start`. Through the
 * running service's admin API it creates an Enterprise account, grants it credits, issues
 * a key, then prints the key (shown this once) and a first call to make with it. Every run
 * makes a new account, so it can be repeated.
 *
 * It reads the same environment as the service: the service is COURT_RECORDS_URL (or --url),
 * else http://HOST:PORT; the token is ADMIN_TOKEN, else, on the embedded default, the one the
 * service wrote to DATA_DIR/secrets/admin-token. Exit 0 when seeded, 1 when the service
 * refused or could not be reached, 2 for a bad command line.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ADMIN_TOKEN_FILE } from '../adapters/crypto/local-secret.ts';
import { loadConfig, type Config } from '../config.ts';
import { LISTEN_USAGE, ListenUsageError, runListen } from './dev-listen.ts';
import { FORWARD_USAGE, runForward } from './dev-forward.ts';
import { callAdmin, type AdminIo, type AdminRequest } from './admin.ts';

const DEFAULT_CREDITS = 10_000;
const USAGE = `usage: court-records dev seed [--url URL] [--credits N] [--json]
  creates an Enterprise account with N credits (default ${String(DEFAULT_CREDITS)}), a dashboard password, a live key and a
  test-mode key on the running service, and prints them and first calls (--json: one JSON object instead)`;
const MAX_CREDITS = 1_000_000_000;

class UsageError extends Error {}

interface Seed {
  readonly serviceUrl: string;
  readonly apiRoot: string;
  readonly token: string;
  readonly credits: number;
  readonly json: boolean;
}

function tokenOf(env: AdminIo['env'], dataDir: string, usesEmbeddedDatabase: boolean): string {
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  if (!usesEmbeddedDatabase) throw new UsageError('set ADMIN_TOKEN to the service’s admin token');
  try {
    return readFileSync(ADMIN_TOKEN_FILE(dataDir), 'utf8').trim();
  } catch {
    throw new UsageError(`no admin token: set ADMIN_TOKEN, or start the service (npm start) so it writes ${ADMIN_TOKEN_FILE(dataDir)}`);
  }
}

/** Where the service answers, from the same environment as `npm start` (or --url), and its configuration. */
function serviceOf(env: AdminIo['env'], flag: string | undefined): { config: Config; serviceUrl: string } {
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  // A service listening on every interface is reached on loopback.
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  let serviceUrl = flag ?? (env.COURT_RECORDS_URL || `http://${host}:${String(config.PORT)}`);
  while (serviceUrl.endsWith('/')) serviceUrl = serviceUrl.slice(0, -1);
  return { config, serviceUrl };
}

function parse(argv: readonly string[], env: AdminIo['env']): Seed | 'help' {
  const [action, ...rest] = argv;
  if (action === undefined || action === '--help' || action === '-h') return 'help';
  if (action !== 'seed') throw new UsageError(`unknown command: dev ${action}`);
  let flags: { url?: string; credits?: string; json?: boolean };
  try {
    flags = parseArgs({
      args: [...rest],
      options: { url: { type: 'string' }, credits: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const credits = flags.credits === undefined ? DEFAULT_CREDITS : Number(flags.credits);
  if (!/^\d+$/.test(flags.credits ?? '1') || !Number.isSafeInteger(credits) || credits < 1 || credits > MAX_CREDITS) {
    throw new UsageError(`--credits must be a whole number from 1 to ${String(MAX_CREDITS)}`);
  }
  const { config, serviceUrl } = serviceOf(env, flags.url);
  return {
    serviceUrl,
    apiRoot: `${serviceUrl}${config.API_BASE_PATH}`,
    token: tokenOf(env, config.DATA_DIR, config.DATABASE_URL === undefined),
    credits,
    json: flags.json === true,
  };
}

/** Single quotes for a POSIX shell: the key and URL are printed to be pasted. */
function quoted(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export async function runDev(argv: readonly string[], io: AdminIo): Promise<number> {
  let seed: Seed | 'help';
  try {
    // With --forward-to it follows GET /events of any deployment; without, it registers a local receiver.
    if (argv[0] === 'listen' && argv.some((a) => a.startsWith('--forward-to'))) return await runForward(argv.slice(1), io);
    if (argv[0] === 'listen') return await runListen(argv.slice(1), io, (flag) => serviceOf(io.env, flag).serviceUrl);
    seed = parse(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof ListenUsageError)) throw error;
    io.stderr.write(`court-records dev: ${error.message}\n`);
    return 2;
  }
  if (seed === 'help') {
    io.stderr.write(`${USAGE}\n${LISTEN_USAGE}\n${FORWARD_USAGE}\n`);
    return 0;
  }
  const email = `quickstart-${randomBytes(4).toString('hex')}@example.com`;
  // The dashboard's password, shown once like the keys: the service keeps only its hash.
  const password = randomBytes(18).toString('base64url');
  const call = (request: AdminRequest) => callAdmin(seed.serviceUrl, seed.token, request, io.fetch);
  const user = await call({
    method: 'POST',
    path: '/admin/users',
    body: { email, name: 'Quickstart developer', tier: 'enterprise', emailVerified: true, apiAccess: true, password },
  });
  if ('failure' in user) return failed(io, user.failure, user.usage);
  const userId = String(user.data.userId);
  const path = `/admin/users/${encodeURIComponent(userId)}`;
  const grant = await call({
    method: 'POST',
    path: `${path}/credits`,
    body: { amount: seed.credits, source: 'grant', note: 'court-records dev seed' },
  });
  if ('failure' in grant) return failed(io, grant.failure, grant.usage);
  const key = await call({ method: 'POST', path: `${path}/keys`, body: { name: 'quickstart' } });
  if ('failure' in key) return failed(io, key.failure, key.usage);
  const fullKey = String(key.data.fullKey);
  const testKey = await call({ method: 'POST', path: `${path}/keys`, body: { name: 'quickstart test mode', mode: 'test' } });
  if ('failure' in testKey) return failed(io, testKey.failure, testKey.usage);
  const testApiKey = String(testKey.data.fullKey);

  if (seed.json) {
    io.stdout.write(
      `${JSON.stringify({ userId, email, password, tier: 'enterprise', credits: seed.credits, apiKey: fullKey, testApiKey, apiRoot: seed.apiRoot, dashboardUrl: `${seed.serviceUrl}/dashboard` })}\n`,
    );
    return 0;
  }
  const header = quoted(`X-API-Key: ${fullKey}`);
  io.stdout.write(
    [
      `Enterprise account ${email} (${userId}) with ${String(seed.credits)} credits.`,
      `API key, shown this once (the service keeps only its hash):`,
      `  ${fullKey}`,
      ``,
      `First call (free: your tier, balance, limits and prices):`,
      `  curl -s -H ${header} ${quoted(`${seed.apiRoot}/usage`)}`,
      `A keyword search (5 credits):`,
      `  curl -s -X POST -H ${header} -H 'Content-Type: application/json' -d '{"query":"union of india","limit":5}' ${quoted(`${seed.apiRoot}/search/cases`)}`,
      ``,
      `Test-mode key (same routes, a fixed fixture corpus, never charged; see docs/customer-guide.md):`,
      `  ${testApiKey}`,
      `The same search in test mode:`,
      `  curl -s -X POST -H ${quoted(`X-API-Key: ${testApiKey}`)} -H 'Content-Type: application/json' -d '{"query":"union of india","limit":5}' ${quoted(`${seed.apiRoot}/search/cases`)}`,
      ``,
      `Dashboard (keys, credits, usage, billing): ${seed.serviceUrl}/dashboard`,
      `  email ${email}, password shown this once: ${password}`,
      `Webhooks: in another terminal, receive and verify your account's events:`,
      `  npx court-records dev listen --email ${quoted(email)} --password ${quoted(password)}`,
      `then ask for a case's timeline (free), whose timeline.completed event the listener prints:`,
      `  curl -s -X POST -H ${header} -H 'Content-Type: application/json' -d '{"cnr":"GAHC010225502018"}' ${quoted(`${seed.apiRoot}/request-timeline`)}`,
      ``,
    ].join('\n'),
  );
  return 0;
}

function failed(io: AdminIo, failure: string, usage: boolean): number {
  io.stderr.write(`court-records dev: ${failure}\n`);
  return usage ? 2 : 1;
}

export function devCommand(argv: string[]): Promise<number> {
  return runDev(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, fetch: (input, init) => fetch(input, init) });
}
