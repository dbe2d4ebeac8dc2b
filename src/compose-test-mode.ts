/**
 * Test mode, like Stripe's: keys with the test prefix (crk_test) reach every route of the
 * API, answered by the same graph as the live service (composition/graph.ts) built over
 * test mode's own adapters (composition/test-mode-adapters.ts: its stores, the fixture
 * corpus, deterministic analysis, workflows on its own queues), so a test key can never
 * read or write a live record and never spends a live credit. Each billing account's test
 * ledger opens with TEST_MODE_CREDITS test credits, granted on its first test call; they
 * are worth nothing and never touch the live ledger.
 *
 * The keys themselves, their accounts and their standing stay live: a test key is a key of
 * a live account, authenticated, limited and revocable like any other, by the live key
 * gate. On shared stores (DATABASE_URL) every instance serves the same test environment and
 * builds its part of it as it starts (`start`), so no test call waits for it; on the
 * embedded default it is built on the first test call (a few seconds), so a service nobody
 * tests against pays nothing for it. Its background tasks and workers then run in this
 * process until the service stops.
 */
import type { Context } from 'hono';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Principal } from './application/access/key-authenticator.ts';
import { billingAccountOf, type CreditsService } from './application/credits/credits-service.ts';
import type { Adapters } from './composition/adapters.ts';
import { buildGraph, type Graph } from './composition/graph.ts';
import { lifecycle } from './composition/lifecycle.ts';
import { openTestModeAdapters } from './composition/test-mode-adapters.ts';
import type { Config } from './config.ts';
import { createApp, type AppDeps } from './http/app.ts';
import type { App } from './http/app-types.ts';
import type { AppEnv } from './http/env.ts';
import { randomIds, type Clock } from './ports/clock.ts';

/** What each billing account's test ledger opens with. */
export const TEST_MODE_CREDITS = 1_000_000;

export interface TestModeOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The live service's adapters: test mode shares those test-mode-adapters.ts says it shares. */
  readonly liveAdapters: Adapters;
  /** The live app's deps: test mode serves the same routes, through the live key gate, with its own services behind them. */
  readonly live: AppDeps;
  readonly socketAddress: (c: Context<AppEnv>) => string;
}

export interface TestMode {
  /** Starts building test mode in the background, if nothing has yet. */
  start(): void;
  /** The app that answers test keys, building it if nothing has started to. */
  app(): Promise<App>;
  close(): Promise<void>;
}

/**
 * Grants each billing account its opening test balance once. The check and the grant run in
 * one ledger transaction under the account's lock, so two instances opening one account at
 * once grant once; the map only spares this instance the round trip afterwards.
 */
class TestBalances {
  readonly #opened = new Map<string, Promise<void>>();

  constructor(private readonly credits: CreditsService) {}

  ensure(principal: Principal): Promise<void> {
    const account = billingAccountOf(principal);
    let opened = this.#opened.get(account);
    if (!opened) {
      opened = this.#open(account);
      this.#opened.set(account, opened);
      // A failed grant is retried by the next call rather than remembered.
      opened.catch(() => this.#opened.delete(account));
    }
    return opened;
  }

  async #open(account: string): Promise<void> {
    await this.credits.transaction(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`test-mode-opening:${account}`}))`.execute(trx);
      const { balance, reserved } = await this.credits.balance(account, trx);
      // A balance or hold means this account's test ledger was opened before (by this instance or another).
      if (balance !== 0 || reserved !== 0) return;
      const granted = await this.credits.grant(
        account,
        { amount: TEST_MODE_CREDITS, source: 'grant', note: 'test mode opening balance' },
        {},
        trx,
      );
      if (!granted.ok) throw new Error(`test mode balance not opened: ${granted.error.tag}`);
    });
  }
}

interface Built {
  readonly app: App;
  readonly close: () => Promise<void>;
}

export function testMode(options: TestModeOptions): TestMode {
  let building: Promise<Built> | undefined;
  // A build under way when the service stops ends between its steps instead of starting test mode's tasks and workers.
  const stopping = new AbortController();
  const started = () =>
    (building ??= build(options, stopping.signal).catch((err: unknown) => {
      // The next test call tries again; until then each one answers 502.
      building = undefined;
      throw err;
    }));
  return {
    start: () => {
      // Logged in build; a test call meanwhile is answered "retry shortly".
      started().catch(() => undefined);
    },
    app: async () => (await started()).app,
    close: async () => {
      stopping.abort(new Error('the service is stopping'));
      const built = await building?.catch(() => undefined);
      await built?.close();
    },
  };
}

async function build(options: TestModeOptions, signal: AbortSignal): Promise<Built> {
  const { config, clock } = options;
  const logger = options.logger.child({ mode: 'test' });
  const started = Date.now();
  const life = lifecycle({ onFailure: (step, err) => logger.warn({ err, step }, 'test mode: closing failed') });
  const close = async () => {
    await life.stop(Number.POSITIVE_INFINITY);
  };
  try {
    const adapters = await openTestModeAdapters(config, options.liveAdapters, { clock, logger, life, signal });
    const graph = buildGraph(adapters, { config, clock, ids: randomIds, logger, socketAddress: options.socketAddress });
    for (const task of graph.tasks) life.task(task);
    signal.throwIfAborted();
    life.start();
    // Test mode has no worker apart: its workers always run in this process.
    adapters.workflowRuntime.startWorkers(graph.activities);
    // The fixtures' documents are stored before the first test call: test mode's answers do not change as it warms.
    await graph.warmUp(signal);
    const balances = new TestBalances(graph.application.credits);
    const app = createApp(testModeDeps(options.live, graph, (principal) => balances.ensure(principal)));
    logger.info({ ms: Date.now() - started }, 'test mode ready');
    return { app, close };
  } catch (err) {
    logger.error({ err, ms: Date.now() - started }, 'test mode could not start: test calls answer 502 until one builds it');
    await close();
    throw err;
  }
}

/**
 * The live app's deps with test mode's services behind every keyed route: the live key gate
 * (in mode 'test', opening the account's test balance on admission, auditing into test
 * mode's log) in front; accounts, settings, dashboard, admin and health stay live.
 */
function testModeDeps(live: AppDeps, graph: Graph, onAdmitted: (principal: Principal) => Promise<void>): AppDeps {
  const test = graph.appDeps;
  return {
    ...live,
    coverage: { ...live.coverage, service: test.coverage.service },
    apiKeyGate: {
      ...live.apiKeyGate,
      mode: 'test',
      onAdmitted,
      audit: { ...live.apiKeyGate.audit, recorder: graph.application.audit },
    },
    audit: { ...live.audit, queries: test.audit.queries },
    usage: test.usage,
    research: test.research,
    analysis: { ...live.analysis, cases: test.analysis.cases, requests: test.analysis.requests },
    screening: test.screening,
    timeline: { ...live.timeline, requests: test.timeline.requests, documents: test.timeline.documents },
    // Test mode's events are recorded in the live database beside the live ones (webhook-outbox.ts).
    events: { ...live.events, mode: 'test' },
    // Endpoints live in the live database too: a test key manages the account's test-mode ones.
    webhookApi: { ...live.webhookApi, mode: 'test' },
    testMode: undefined,
  };
}
