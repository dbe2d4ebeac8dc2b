/**
 * The real service (`src/main.ts`, production composition) started as a child process over
 * a fresh PostgreSQL database, with one funded Enterprise key made before it starts, for
 * benches that load its HTTP path from outside (see `wrk.ts`): the load generator and the
 * bench's own bookkeeping then share no event loop with the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { createClient } from 'redis';
import type { NewUser } from '../src/application/accounts/accounts-service.ts';
import type { Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite, openPostgres } from '../src/db/open.ts';
import { enterpriseUser } from '../test/support/access-fixture.ts';
import { buildTestApp } from '../test/support/app.ts';

const operator = { kind: 'operator' } as const;
export const BENCH_KEY_HASH_SECRET = 'bench-key-hash-secret-of-at-least-32-chars';

/** A database of its own on the server at `adminUrl`, migrated; `drop` removes it. */
export interface BenchDatabase {
  readonly url: string;
  readonly db: Db;
  drop(): Promise<void>;
}

export async function freshDatabase(adminUrl: string, prefix: string): Promise<BenchDatabase> {
  const name = `${prefix}_${String(Date.now())}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const opened = await openPostgres(url.toString(), { max: 4 });
  await migrate(opened.db);
  return {
    url: url.toString(),
    db: opened.db,
    drop: async () => {
      await opened.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      // Test mode's database beside it, which a service over this one creates (composition/test-mode-adapters.ts).
      await admin.unsafe(`drop database if exists ${name}_test_mode with (force)`);
      await admin.end();
    },
  };
}

/**
 * A migrated PGlite database in a temporary DATA_DIR, for a child on the embedded default:
 * prepare it through `db`, `release` it before the child starts (one process at a time
 * holds PGlite's files), `reopen` it after the child stopped.
 */
export interface BenchPglite {
  readonly dataDir: string;
  readonly db: Db;
  release(): Promise<void>;
  reopen(): Promise<Db>;
  drop(): Promise<void>;
}

export async function freshPglite(): Promise<BenchPglite> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
  let opened = await openPglite(dataDir, 'the bench');
  await migrate(opened.db);
  let open = true;
  return {
    dataDir,
    db: opened.db,
    release: async () => {
      await opened.close();
      open = false;
    },
    reopen: async () => {
      opened = await openPglite(dataDir, 'the bench');
      open = true;
      return opened.db;
    },
    drop: async () => {
      if (open) await opened.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface FundedAccount {
  readonly email: string;
  readonly credits: number;
  readonly user?: Partial<NewUser>;
}

/**
 * Enterprise users with API access, each with its credits granted and one key, made through
 * the application layer as an operator would (one object graph for them all). Their rate
 * limits are lifted: a bench measures admissions, not refusals.
 */
export async function fundedKeys(db: Db, accounts: readonly FundedAccount[]): Promise<{ userId: string; key: string }[]> {
  const { application } = buildTestApp({ db, keyHashSecret: BENCH_KEY_HASH_SECRET });
  const must = <T>(r: { ok: true; value: T } | { ok: false; error: { tag: string } }): T => {
    if (!r.ok) throw new Error(`bench setup refused: ${r.error.tag}`);
    return r.value;
  };
  const funded: { userId: string; key: string }[] = [];
  for (const account of accounts) {
    const user = must(
      await application.accounts.registerUser(
        enterpriseUser(account.email, {
          limitOverrides: { requestsPerMinute: 100_000_000, distinctKeysPerIpPerDay: 100_000 },
          ...account.user,
        }),
        operator,
      ),
    );
    must(await application.credits.grant(user.userId, { amount: account.credits, source: 'grant' }));
    funded.push({ userId: user.userId, key: must(await application.accounts.createKey(user.userId, 'bench', operator)).fullKey });
  }
  return funded;
}

/** One funded key: see `fundedKeys`. */
export async function fundedKey(db: Db, account: FundedAccount): Promise<{ userId: string; key: string }> {
  const [funded] = await fundedKeys(db, [account]);
  return funded!;
}

export interface ServeChildOptions {
  /** PostgreSQL; unset runs the embedded default, PGlite under `dataDir`. */
  readonly databaseUrl?: string;
  /** The service's DATA_DIR, kept at stop (a PGlite database prepared before); unset makes a temporary one. */
  readonly dataDir?: string;
  /** Redis for rate limits and caches, as a multi-instance deployment runs; unset keeps them in process. */
  readonly redisUrl?: string;
  /** Production's default is info: the access log is part of the measured path. */
  readonly logLevel?: string;
  /** Extra flags for node, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof']. */
  readonly nodeArgs?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** The checkout whose src/main.ts runs (default: this one), e.g. a base commit's for before-and-after in one run. */
  readonly cwd?: string;
}

export interface ChildService {
  /** The API root, e.g. http://127.0.0.1:PORT/api/v1/prod. */
  readonly root: string;
  readonly pid: number;
  /** SIGTERM (a graceful stop, which also writes a --cpu-prof profile), then waits for the exit. */
  stop(): Promise<void>;
  /**
   * Resolves once the service's start-up work is over (PDFs rendered for the judgments it
   * holds, their chunks embedded, the search index fed): its CPU use stays under 10% of a
   * core for a second, with every process it started. Measuring before would load the service and that work together.
   * `busyBelow`: another share of a core (a --cpu-prof sampling thread alone uses more than 10%).
   */
  settled(busyBelow?: number): Promise<void>;
}

/** CPU seconds the process has used (user and system), from /proc. */
function cpuSeconds(pid: number): number {
  // Fields after the command name (which may hold spaces), 1-based 14 and 15: utime, stime in clock ticks.
  const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
    .split(') ')[1]!
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The process and every process below it (API_PROCESSES forks the API processes). */
function processTree(pid: number): number[] {
  const children = readdirSync(`/proc/${String(pid)}/task`).flatMap((task) => {
    try {
      return readFileSync(`/proc/${String(pid)}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  });
  return [pid, ...children.flatMap(processTree)];
}

export function treeCpuSeconds(pid: number): number {
  return processTree(pid).reduce((sum, p) => {
    try {
      return sum + cpuSeconds(p);
    } catch {
      return sum;
    }
  }, 0);
}

/** CPU seconds used so far, split by who used them on this machine. */
export interface CpuSplit {
  /** The service's process tree. */
  readonly service: number;
  /** Every PostgreSQL process (the postmaster and its backends). */
  readonly postgres: number;
  readonly redis: number;
  /** This process's children that have exited: the wrk runs. */
  readonly loadGenerator: number;
}

/** Reads the CPU used by the service, PostgreSQL, Redis and the load generator, from /proc. */
export function cpuSplit(servicePid: number): CpuSplit {
  let postgres = 0;
  let redis = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (command === 'postgres') postgres += cpuSeconds(Number(entry));
      else if (command.startsWith('redis-server')) redis += cpuSeconds(Number(entry));
    } catch {
      continue;
    }
  }
  const own = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // Fields 16 and 17: cutime, cstime (children waited for).
  const loadGenerator = (Number(own[13]) + Number(own[14])) / 100;
  return { service: treeCpuSeconds(servicePid), postgres, redis, loadGenerator };
}

async function settledProcess(pid: number, busyBelow = 0.1, timeoutMs = 600_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const before = treeCpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    if (treeCpuSeconds(pid) - before < busyBelow) return;
  }
  throw new Error(`the service was still busy after ${String(timeoutMs / 1000)} s`);
}

/**
 * A bench's service counts in a Redis logical database of its own (15), emptied when the
 * bench stops it: a thousand keys seen from 127.0.0.1 today must not fill the per-address
 * key sets that tests on the same Redis count in database 0.
 */
export function benchRedisUrl(url: string): string {
  const own = new URL(url);
  own.pathname = '/15';
  return own.toString();
}

export async function clearBenchRedis(url: string): Promise<void> {
  const client = createClient({ url: benchRedisUrl(url) });
  await client.connect();
  await client.flushDb();
  await client.quit();
}

export async function serveChild(options: ServeChildOptions): Promise<ChildService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'bench-child-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'src/main.ts'], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: options.databaseUrl ?? '',
      REDIS_URL: options.redisUrl ? benchRedisUrl(options.redisUrl) : '',
      KEY_HASH_SECRET: BENCH_KEY_HASH_SECRET,
      AUTO_INGEST: 'false',
      LOG_LEVEL: options.logLevel ?? 'info',
      // No workflow engine: nothing on the measured paths uses one, and a dev server would compete for the cores.
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      TEMPORAL_CODEC_KEYS: `bench:${randomBytes(32).toString('base64')}`,
      ...options.env,
    },
    // Log lines go to /dev/null: what is measured is the service's cost of making and writing them.
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    if (options.redisUrl) await clearBenchRedis(options.redisUrl);
    if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  };
  const root = `http://127.0.0.1:${String(port)}/api/v1/prod`;
  for (let i = 0; i < 240; i += 1) {
    if (child.exitCode !== null) break;
    const up = await fetch(`${root}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { root, pid: child.pid!, stop, settled: (busyBelow) => settledProcess(child.pid!, busyBelow) };
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error('the service did not come up');
}
