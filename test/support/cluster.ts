/**
 * A cluster of the real service on one machine, for the cluster tier and the cluster
 * benchmark: shared engines (a fresh PostgreSQL database, a Redis database of its own,
 * a Meilisearch index prefix of its own, an external Temporal dev server, S3 from moto),
 * N API processes (`src/main.ts`, TEMPORAL_WORKER_IN_PROCESS false) on fixed loopback
 * ports so one can be killed and started again where a load balancer expects it, and one
 * worker apart (`workflows/worker/main.ts`). Every process it starts is stopped by
 * `stop()`, and by a last-chance SIGKILL when the test process exits without it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createClient } from 'redis';
import { freeLoopbackPort, portOpen } from '../../src/adapters/temporal/dev-server-ports.ts';
import { DEV_SERVER_FLAGS } from '../../src/adapters/temporal/search-attributes.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { corpusDir } from './corpus.ts';
import { databases, type TestDatabase } from './databases.ts';
import { dropIndexes, meilisearchForSuite, meilisearchMissing } from './meilisearch.ts';
import { temporalCli } from './temporal.ts';

export const API = '/api/v1/prod';
export const ADMIN_TOKEN = 'cluster-admin-token-0123456789';
const KEY_HASH_SECRET = 'cluster-key-hash-secret-of-at-least-32-chars';
const DOCUMENT_URL_SECRET = 'cluster-document-url-secret-of-32-chars-min';
const S3_CREDENTIALS = { accessKeyId: 'cluster-test', secretAccessKey: 'cluster-test-secret' };
const S3_BUCKET = 'court-records-cluster';
/** A Redis database of its own: the cluster's cache, rate limits and key cache meet no other test's. */
const REDIS_DB = 11;

/** Why the cluster cannot run here, or false when it can. */
export const clusterMissing: string | false = (() => {
  if (!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL) return 'TEST_DATABASE_URL and TEST_REDIS_URL not set';
  if (meilisearchMissing) return meilisearchMissing;
  if (!temporalCli()) return 'no Temporal CLI (TEMPORAL_CLI_PATH, PATH or ../shared/bin/temporal)';
  if (spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status !== 0) return 'no haproxy (the load balancer; .ci/run installs it)';
  if (spawnSync('python3', ['-c', 'import moto.server'], { stdio: 'ignore' }).status !== 0)
    return 'moto is not importable (pip install "moto[server]")';
  return false;
})();

/** A child process of the cluster, with what it printed and a way to wait for its exit. */
interface Child {
  readonly process: ChildProcess;
  readonly exited: Promise<void>;
  output(): string;
}

const children = new Set<ChildProcess>();
// Last chance: a test process that exits (an assertion thrown before `stop()`) leaves nothing running.
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function launch(command: string, args: readonly string[], env: Record<string, string>): Child {
  const child = spawn(command, [...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    // A long run's logs are kept to their tail: enough to say why a process died.
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      children.delete(child);
      resolve();
    }),
  );
  return { process: child, exited, output: () => output };
}

function running(child: Child | undefined): boolean {
  return child !== undefined && child.process.exitCode === null && child.process.signalCode === null;
}

/** SIGTERM and wait for the exit; SIGKILL after `graceMs`. */
async function terminate(child: Child | undefined, graceMs: number): Promise<void> {
  if (!child || !running(child)) return;
  child.process.kill('SIGTERM');
  const inTime = await Promise.race([child.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs))]);
  if (!inTime) await kill(child);
}

async function kill(child: Child | undefined): Promise<void> {
  if (!child || !running(child)) return;
  child.process.kill('SIGKILL');
  await child.exited;
}

/** Polls `probe` until it holds; fails early when the process it waits for (`child`) exits. */
async function until(what: string, deadlineMs: number, probe: () => Promise<boolean>, child: Child): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await probe()) return;
    if (!running(child)) throw new Error(`${what}: the process exited\n${child.output().slice(-4000)}`);
    if (Date.now() > deadline) throw new Error(`${what} within ${String(deadlineMs / 1000)} s\n${child.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface ApiInstance {
  readonly index: number;
  readonly port: number;
  /** http://127.0.0.1:port, the instance itself (the load balancer's backend). */
  readonly url: string;
  readonly running: boolean;
  output(): string;
}

export interface Cluster {
  readonly database: TestDatabase;
  readonly instances: readonly ApiInstance[];
  readonly temporalAddress: string;
  /** Starts instance `i` on its port and waits until it answers /health. */
  start(i: number): Promise<void>;
  /** kill -9: no drain, no shutdown work. */
  kill(i: number): Promise<void>;
  /** SIGTERM and wait for the process to end (its drain), SIGKILL past `graceMs`. */
  terminate(i: number, graceMs?: number): Promise<void>;
  startWorker(): Promise<void>;
  killWorker(): Promise<void>;
  workerOutput(): string;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  readonly instances: number;
  /** Extra environment for every API instance and the worker (webhook timings, say). */
  readonly env?: Record<string, string>;
}

/**
 * Starts the engines, loads the Supreme Court abstracts into the database, then the API
 * instances (side by side) and the worker. On any failure what started is stopped.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  if (clusterMissing) throw new Error(clusterMissing);
  const cleanups: (() => Promise<void>)[] = [];
  const instances: { index: number; port: number; url: string; dataDir: string; child: Child | undefined }[] = [];
  let worker: Child | undefined;
  const workerDir = mkdtempSync(join(tmpdir(), 'cluster-worker-'));
  cleanups.push(async () => rmSync(workerDir, { recursive: true, force: true }));
  const stop = async () => {
    await Promise.all(instances.map((instance) => terminate(instance.child, 5_000)));
    await terminate(worker, 10_000);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const database = await databases.find((d) => d.name === 'postgres')!.open();
    cleanups.push(() => database.close());

    const redisUrl = new URL(process.env.TEST_REDIS_URL!);
    redisUrl.pathname = `/${String(REDIS_DB)}`;
    const redis = createClient({ url: redisUrl.toString() });
    await redis.connect();
    await redis.flushDb();
    await redis.quit();

    const meili = await meilisearchForSuite();
    const meiliIndex = `cluster_${randomUUID().slice(0, 8)}`;
    cleanups.push(async () => {
      await dropIndexes(meili.url, meili.apiKey, meiliIndex);
      await meili.close();
    });

    const temporalPort = await freeLoopbackPort();
    const temporal = launch(
      temporalCli()!.path!,
      [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(temporalPort),
        '--headless',
        '--log-level',
        'error',
        ...DEV_SERVER_FLAGS,
      ],
      {},
    );
    cleanups.push(() => terminate(temporal, 5_000));
    await until('the Temporal dev server listening', 30_000, () => portOpen(temporalPort), temporal);

    const s3Port = await freeLoopbackPort();
    const s3Endpoint = `http://127.0.0.1:${String(s3Port)}`;
    const moto = launch('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(s3Port)], {});
    cleanups.push(() => terminate(moto, 5_000));
    await until('moto listening', 20_000, () => portOpen(s3Port), moto);
    const s3 = new S3Client({ region: 'us-east-1', endpoint: s3Endpoint, forcePathStyle: true, credentials: S3_CREDENTIALS });
    await s3.send(new CreateBucketCommand({ Bucket: S3_BUCKET }));
    s3.destroy();

    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date(), sources: [scInAbsSource] });

    const temporalAddress = `127.0.0.1:${String(temporalPort)}`;
    const shared: Record<string, string> = {
      DATABASE_URL: database.url!,
      REDIS_URL: redisUrl.toString(),
      MEILI_URL: meili.url,
      ...(meili.apiKey ? { MEILI_API_KEY: meili.apiKey } : {}),
      MEILI_INDEX: meiliIndex,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_CODEC_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      TEMPORAL_WORKER_IN_PROCESS: 'false',
      S3_BUCKET,
      S3_ENDPOINT: s3Endpoint,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
      DOCUMENT_URL_SECRET,
      KEY_HASH_SECRET,
      ADMIN_TOKEN,
      CORPUS_DIR: corpusDir,
      AUTO_INGEST: 'false',
      TEST_MODE: 'false',
      // The webhook receiver is a loopback http server of the test's.
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      // The load balancer is a proxy on loopback: the audit keeps the client's address it forwards.
      TRUSTED_PROXIES: '127.0.0.1',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...options.env,
    };

    for (let index = 0; index < options.instances; index += 1) {
      const port = await freeLoopbackPort();
      const dataDir = mkdtempSync(join(tmpdir(), `cluster-api-${String(index)}-`));
      cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      instances.push({ index, port, url: `http://127.0.0.1:${String(port)}`, dataDir, child: undefined });
    }

    const start = async (i: number) => {
      const instance = instances[i]!;
      if (running(instance.child)) throw new Error(`instance ${String(i)} is running`);
      const child = launch(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        ...shared,
        PORT: String(instance.port),
        DATA_DIR: instance.dataDir,
        PUBLIC_BASE_URL: `${instance.url}${API}`,
      });
      instance.child = child;
      await until(
        `instance ${String(i)} answering /health`,
        // Generous: a start on a busy 2-core runner (three at once) takes most of a minute.
        240_000,
        () =>
          fetch(`${instance.url}${API}/health`).then(
            (r) => r.ok,
            () => false,
          ),
        child,
      );
    };
    const startWorker = async () => {
      if (running(worker)) throw new Error('the worker is running');
      const child = launch(process.execPath, ['--import', 'tsx', 'workflows/worker/main.ts'], {
        ...shared,
        DATA_DIR: workerDir,
        PUBLIC_BASE_URL: `${instances[0]!.url}${API}`,
        // One analysis at a time: a kill lands inside an activity more often.
        TEMPORAL_WORKER_ACTIVITY_CONCURRENCY: '1',
      });
      worker = child;
      await until('the worker polling its queues', 240_000, async () => (child.output().match(/worker running/g) ?? []).length >= 2, child);
    };

    // Side by side: each start is mostly waiting (the worker bundles its workflows, an API opens its engines).
    await Promise.all([...instances.map((_, i) => start(i)), startWorker()]);

    return {
      database,
      temporalAddress,
      instances: instances.map((instance) => ({
        index: instance.index,
        port: instance.port,
        url: instance.url,
        get running() {
          return running(instance.child);
        },
        output: () => instance.child?.output() ?? '',
      })),
      start,
      kill: (i) => kill(instances[i]!.child),
      terminate: (i, graceMs = 30_000) => terminate(instances[i]!.child, graceMs),
      startWorker,
      killWorker: () => kill(worker),
      workerOutput: () => worker?.output() ?? '',
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
