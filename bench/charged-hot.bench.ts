/**
 * Charged calls at the ledger's speed: GET /cases/:id (1 credit) on the real service, a
 * child process over PostgreSQL or on the embedded default (PGlite), driven by wrk: all load on one hot account (32 and 4
 * connections), then spread over 1,000 accounts (32 connections, a key per request from
 * a Lua script). Medians of RUNS runs. After the runs the ledger must be exact: credits
 * spent equal the 2xx answers times the price, and the ledger reconciles.
 *
 *   TEST_DATABASE_URL=postgres://... node --import tsx bench/charged-hot.bench.ts   # CHARGED_HOT_BACKENDS
 *
 * Targets (issue 15): on PostgreSQL one hot account at least 2,000/s at 32 connections, with
 * p99 at most 25 ms at half that rate, 1,000 accounts at least 3,000/s; on the embedded
 * default at least 500/s.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { reconcileLedger } from '../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import { scInAbsSource } from '../src/corpus/sources/sc-inabs.ts';
import type { CorpusSource } from '../src/corpus/sources/source.ts';
import { corpusDir } from '../test/support/corpus.ts';
import type { Db } from '../src/db/database.ts';
import { freshDatabase, freshPglite, fundedKey, fundedKeys, serveChild, type ChildService } from './serve-child.ts';
import { table } from './stats.ts';
import { medianWrk, wrk, type WrkResult } from './wrk.ts';
import { eventStoreOf } from '../src/wiring.ts';

const CASE = 'sc-inabs-5861';
const ACCOUNTS = 1_000;
const CREDITS = 50_000_000;

export interface ChargedHotFigures {
  readonly backend: ChargedBackend;
  readonly runs: number;
  readonly seconds: number;
  readonly hot32: WrkResult;
  readonly hot4: WrkResult;
  readonly spread32: WrkResult;
  /** Credits the ledger charged, in how many charges. */
  readonly charged: number;
  readonly charges: number;
  /**
   * 2xx answers wrk counted. A request in flight when a wrk run stops is answered and
   * charged but not counted, so charges exceed this by at most `inFlightAtCutOff`; the
   * exact check is the reconciliation of every charge with its request's audit row.
   */
  readonly answered: number;
  readonly inFlightAtCutOff: number;
  /** Ledger read models and audit rows against the ledger: 0 when exact. */
  readonly reconcileDifferences: number;
  readonly eventsPerCommit: number;
}

/** A wrk script giving each request the next account's key. */
function keysScript(keys: readonly string[]): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-keys-'));
  const path = join(dir, 'keys.lua');
  writeFileSync(
    path,
    `local keys = {${keys.map((k) => `"${k}"`).join(',')}}\nlocal i = 0\nrequest = function()\n  i = i % #keys + 1\n  return wrk.format("GET", nil, { ["X-API-Key"] = keys[i] })\nend\n`,
  );
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The source's rows for one case only. */
function onlyCase(source: CorpusSource, caseId: string): CorpusSource {
  return {
    ...source,
    async *read(ctx) {
      for await (const row of source.read(ctx)) if ('ok' in row && row.ok.caseId === caseId) yield row;
    },
  };
}

export type ChargedBackend = 'postgres' | 'pglite';

/** The database the child serves from: prepared here, handed to the child, checked after it stopped. */
interface BenchStore {
  readonly db: Db;
  serve(): Promise<ChildService>;
  afterStop(): Promise<Db>;
  drop(): Promise<void>;
}

async function benchStore(backend: ChargedBackend, adminUrl: string | undefined): Promise<BenchStore> {
  if (backend === 'postgres') {
    if (!adminUrl) throw new Error('the PostgreSQL run needs TEST_DATABASE_URL');
    const database = await freshDatabase(adminUrl, 'bench_charged_hot');
    return {
      db: database.db,
      serve: () => serveChild({ databaseUrl: database.url }),
      afterStop: async () => database.db,
      drop: database.drop,
    };
  }
  const pglite = await freshPglite();
  return {
    db: pglite.db,
    serve: async () => {
      await pglite.release();
      return serveChild({ dataDir: pglite.dataDir });
    },
    afterStop: () => pglite.reopen(),
    drop: pglite.drop,
  };
}

export async function benchChargedHot(
  backend: ChargedBackend,
  adminUrl: string | undefined,
  options: { runs?: number; seconds?: number } = {},
): Promise<ChargedHotFigures> {
  const runs = options.runs ?? 3;
  const seconds = options.seconds ?? 5;
  const store = await benchStore(backend, adminUrl);
  try {
    // Only the case read: the service's start-up work (its PDF, its chunks embedded by the local model) is then a few seconds, not minutes.
    await ingestCorpus({ db: store.db, corpusDir, now: () => new Date(), sources: [onlyCase(scInAbsSource, CASE)] });
    const hot = await fundedKey(store.db, { email: 'hot@lawfirm.example', credits: CREDITS });
    const spread = await fundedKeys(
      store.db,
      Array.from({ length: ACCOUNTS }, (_, i) => ({ email: `spread-${String(i)}@lawfirm.example`, credits: 100_000 })),
    );
    const script = keysScript(spread.map((s) => s.key));
    const service = await store.serve();
    try {
      await service.settled();
      const url = `${service.root}/cases/${CASE}`;
      const keyed = { headers: { 'X-API-Key': hot.key } };
      const all: WrkResult[] = [
        await wrk(url, { ...keyed, durationSeconds: 2 }),
        await wrk(url, { script: script.path, durationSeconds: 2 }),
      ];
      const hot32: WrkResult[] = [];
      const hot4: WrkResult[] = [];
      const spread32: WrkResult[] = [];
      for (let run = 0; run < runs; run += 1) {
        hot32.push(await wrk(url, { ...keyed, connections: 32, durationSeconds: seconds }));
        hot4.push(await wrk(url, { ...keyed, connections: 4, durationSeconds: seconds }));
        spread32.push(await wrk(url, { script: script.path, connections: 32, durationSeconds: seconds }));
      }
      all.push(...hot32, ...hot4, ...spread32);
      await service.stop();
      const db = await store.afterStop();
      const { rows } = await sql<{ charged: number; calls: number }>`
        select coalesce(sum(amount), 0)::int as charged, count(*)::int as calls from credit_charges`.execute(db);
      const { rows: commits } = await sql<{ events: number; commits: number }>`
        select count(*)::int as events, count(distinct transaction_id)::int as commits from events where stream_id like 'credit-ledger-%'`.execute(
        db,
      );
      // Ledger against its read models and every charge against its request's audit row (ClickHouse usage is not run here).
      const report = await reconcileLedger({ db, events: eventStoreOf(db), analytics: null }, {});
      return {
        backend,
        runs,
        seconds,
        hot32: medianWrk(hot32),
        hot4: medianWrk(hot4),
        spread32: medianWrk(spread32),
        charged: rows[0]!.charged,
        charges: rows[0]!.calls,
        answered: all.reduce((n, r) => n + r.requests - r.failures, 0),
        inFlightAtCutOff: 32 * all.length,
        reconcileDifferences: report.differences.length,
        eventsPerCommit: commits[0]!.events / Math.max(1, commits[0]!.commits),
      };
    } finally {
      await service.stop();
      script.remove();
    }
  } finally {
    await store.drop();
  }
}

export function printChargedHot(f: ChargedHotFigures): string {
  const row = (name: string, r: WrkResult) => [name, r.perSecond.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), String(r.failures)];
  return table([
    [
      `GET /cases/:id (1 credit), ${f.backend === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded default)'}`,
      'req/s',
      'p50 ms',
      'p99 ms',
      'non-2xx',
    ],
    row('one hot account, 32 connections', f.hot32),
    row('one hot account, 4 connections', f.hot4),
    row(`${String(ACCOUNTS)} accounts, 32 connections`, f.spread32),
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const backends = (process.env.CHARGED_HOT_BACKENDS ?? (adminUrl ? 'postgres,pglite' : 'pglite'))
    .split(',')
    .map((b) => b.trim()) as ChargedBackend[];
  for (const backend of backends) {
    const figures = await benchChargedHot(backend, adminUrl, {
      runs: Number(process.env.CHARGED_HOT_RUNS ?? 3),
      seconds: Number(process.env.CHARGED_HOT_SECONDS ?? 5),
    });
    console.log(printChargedHot(figures));
    const { hot32: _h, hot4: _f, spread32: _s, ...ledger } = figures;
    console.log(JSON.stringify(ledger));
  }
}
