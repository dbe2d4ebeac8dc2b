/**
 * Fair webhook delivery under abuse: 10 accounts each aim 100 deliveries at black-hole
 * receivers (loopback TCP servers that accept and never answer), and meanwhile another
 * account's deliveries, one every 250 ms, go to a receiver that answers at once. Measured:
 * that account's delivery time, from its delivery row being recorded (what the webhook
 * projector writes) to the request reaching its receiver. The real path: PostgreSQL, the
 * dispatcher on the service's interval, the Temporal dev server, one worker with the
 * service's slots, and the service's delivery settings (10 s response timeout, 2 s connect
 * timeout, 4 workflows in flight per account). Requirement: p95 ≤ 2 s.
 *
 *   TEST_DATABASE_URL=postgres://… node --import tsx bench/webhook-fairness.bench.ts
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TemporalWebhookWorkflows } from '../src/adapters/temporal/webhook-workflows.ts';
import { createWorker } from '../src/adapters/temporal/workers.ts';
import { loadConfig } from '../src/config.ts';
import { TASK_QUEUES } from '../workflows/task-queues.ts';
import { createWebhookActivities } from '../workflows/activities/webhook-activities.ts';
import { buildTestApp } from '../test/support/app.ts';
import { databases } from '../test/support/databases.ts';
import { startTestTemporal, temporalCli, workflowBundle } from '../test/support/temporal.ts';
import { BlackHole, queueDelivery } from '../test/support/webhook-black-hole.ts';
import { median } from './stats.ts';

const NOISY_ACCOUNTS = 10;
const NOISY_EACH = 100;
const QUIET_DELIVERIES = 40;
const QUIET_EVERY_MS = 250;
const RUNS = 3;

/** The service's defaults, as a deployment runs without WEBHOOK_* settings. */
const defaults = loadConfig({});

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

/** One run: the quiet account's delivery times, milliseconds. */
async function run(): Promise<number[]> {
  const factory = databases.find((f) => f.name === 'postgres');
  if (!factory) throw new Error('needs TEST_DATABASE_URL');
  const database = await factory.open();
  const temporal = await startTestTemporal();
  const t = buildTestApp({
    db: database.db,
    webhookWorkflows: new TemporalWebhookWorkflows(temporal.runtime.client, {
      attemptTimeoutMs: defaults.WEBHOOK_TIMEOUT_MS + 5_000,
      retry: {
        initialIntervalMs: defaults.WEBHOOK_RETRY_INITIAL_MS,
        backoffCoefficient: defaults.WEBHOOK_RETRY_BACKOFF,
        maximumIntervalMs: defaults.WEBHOOK_RETRY_MAX_INTERVAL_MS,
        maximumAttempts: defaults.WEBHOOK_MAX_ATTEMPTS,
      },
    }),
    webhookSettings: { WEBHOOK_TIMEOUT_MS: String(defaults.WEBHOOK_TIMEOUT_MS) },
  });
  const worker = await createWorker(
    temporal.runtime,
    TASK_QUEUES.webhooks,
    createWebhookActivities({ deliveries: t.webhooks.deliveries }),
    {
      dataConverter: temporal.dataConverter,
      bundle: await workflowBundle(),
      maxConcurrentActivities: defaults.WEBHOOK_WORKER_SLOTS,
    },
  );
  const working = worker.run();
  const holes = Array.from({ length: NOISY_ACCOUNTS }, () => new BlackHole());
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.set(String(req.headers['webhook-id']), Date.now());
      res.writeHead(200).end();
    });
  });
  const receiverPort = await listen(receiver);
  const endpoint = async (accountId: string, port: number) => {
    const registered = await t.webhooks.endpoints.register(
      accountId,
      { url: `http://127.0.0.1:${String(port)}/hook`, eventTypes: ['analysis.stored'], mode: 'live' },
      `bench-${accountId}`,
    );
    if (!registered.ok) throw new Error(registered.error.tag);
    return registered.value.id;
  };
  for (const [i, hole] of holes.entries()) {
    const id = await endpoint(`noisy-${String(i)}`, await hole.listen());
    for (let n = 0; n < NOISY_EACH; n += 1) await queueDelivery(database.db, `noisy-${String(i)}`, id, 'bench');
  }
  const quietEndpoint = await endpoint('quiet', receiverPort);
  const stop = new AbortController();
  const dispatcher = (async () => {
    while (!stop.signal.aborted) {
      await t.webhooks.dispatcher.dispatch();
      await new Promise((r) => setTimeout(r, defaults.WEBHOOK_DISPATCH_INTERVAL_MS));
    }
  })();
  // The black holes' first attempts are under way before the quiet account's first delivery.
  await new Promise((r) => setTimeout(r, 2 * defaults.WEBHOOK_DISPATCH_INTERVAL_MS));
  const recorded = new Map<string, number>();
  for (let i = 0; i < QUIET_DELIVERIES; i += 1) {
    recorded.set(await queueDelivery(database.db, 'quiet', quietEndpoint, 'bench'), Date.now());
    await new Promise((r) => setTimeout(r, QUIET_EVERY_MS));
  }
  const deadline = Date.now() + 120_000;
  while (arrivals.size < QUIET_DELIVERIES && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  stop.abort();
  await dispatcher;
  for (const hole of holes) await hole.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  worker.shutdown();
  await working;
  await temporal.close();
  await database.close();
  // A delivery that never arrived counts as the whole wait.
  return [...recorded].map(([id, at]) => (arrivals.get(id) ?? deadline) - at);
}

export interface WebhookFairnessFigures {
  readonly runs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
}

/** Medians over the runs of each run's p50, p95 and max; null without PostgreSQL or the Temporal CLI. */
export async function benchWebhookFairness(): Promise<WebhookFairnessFigures | null> {
  if (!temporalCli() || !databases.some((f) => f.name === 'postgres')) return null;
  const p50: number[] = [];
  const p95: number[] = [];
  const max: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const times = await run();
    p50.push(percentile(times, 50));
    p95.push(percentile(times, 95));
    max.push(Math.max(...times));
  }
  return { runs: RUNS, p50Ms: median(p50), p95Ms: median(p95), maxMs: median(max) };
}

export function printWebhookFairness(figures: WebhookFairnessFigures): string {
  return [
    `Webhook fairness: ${String(NOISY_ACCOUNTS)} accounts × ${String(NOISY_EACH)} deliveries to black holes; another account's ${String(QUIET_DELIVERIES)} deliveries (medians of ${String(figures.runs)} runs)`,
    `  its delivery time p50 ${figures.p50Ms.toFixed(0)} ms, p95 ${figures.p95Ms.toFixed(0)} ms, max ${figures.maxMs.toFixed(0)} ms (requirement: p95 ≤ 2000 ms)`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const figures = await benchWebhookFairness();
  console.log(figures ? printWebhookFairness(figures) : '(Webhook fairness skipped: needs TEST_DATABASE_URL and the Temporal CLI)');
}
