/**
 * Charged reads beside the gate, in one run on the production engines: a bare Hono app
 * (this process), then the real service (child process; PostgreSQL, rate limits and caches
 * in Redis) answering GET /health, keyed GET /me and a read mix of GET /cases/:id (1
 * credit) over 60 real Supreme Court cases (ingested from the corpus), on one account and
 * over 1,000 accounts (a key and a case per request from a Lua script), with wrk at 32
 * connections; the kinds take turns within each run, medians of RUNS runs. The service is
 * measured with one API process and with one per core (API_PROCESSES=auto) over the same
 * database. After the runs the ledger must be exact: credits spent equal the 2xx reads
 * (within the requests in flight at each cut-off) and reconcileLedger finds nothing.
 *
 *   TEST_DATABASE_URL=postgres://... TEST_REDIS_URL=redis://... node --import tsx bench/charged-reads.bench.ts
 *   # CHARGED_READS_RUNS (3), CHARGED_READS_SECONDS (4), CHARGED_READS_CASES (60), CHARGED_READS_PROCESSES (1,auto),
 *   # CHARGED_READS_PROFILE=DIR: the service runs with --cpu-prof, its profile written to DIR when it stops
 *
 * Targets (issue 27): /health >= 0.5 of bare; /me >= 0.5 of /health; the mix >= 0.2 of
 * /health; >= 2,000/s on one account; >= 3,000/s over 1,000 accounts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { reconcileLedger } from '../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import { scInAbsSource } from '../src/corpus/sources/sc-inabs.ts';
import type { CorpusSource } from '../src/corpus/sources/source.ts';
import type { Db } from '../src/db/database.ts';
import { eventStoreOf } from '../src/wiring.ts';
import { corpusDir } from '../test/support/corpus.ts';
import { serveBare } from './hot-path.bench.ts';
import { cpuSplit, freshDatabase, fundedKeys, serveChild, type CpuSplit } from './serve-child.ts';
import { table } from './stats.ts';
import { medianWrk, wrk, type WrkResult } from './wrk.ts';

const ACCOUNTS = 1_000;
const CONNECTIONS = 32;

type LoadKind = 'health' | 'me' | 'oneAccount' | 'accounts';

/** CPU milliseconds per request, by who spent them, over every measured run of one load. */
export interface CpuPerRequest {
  readonly service: number;
  readonly postgres: number;
  readonly redis: number;
  readonly loadGenerator: number;
}

export interface ChargedReadsRun {
  readonly processes: string;
  readonly health: WrkResult;
  readonly me: WrkResult;
  readonly oneAccount: WrkResult;
  readonly accounts: WrkResult;
  readonly cpu: Readonly<Record<LoadKind, CpuPerRequest>>;
}

export interface ChargedReadsFigures {
  readonly runs: number;
  readonly seconds: number;
  readonly cases: number;
  readonly bare: WrkResult;
  readonly services: readonly ChargedReadsRun[];
  readonly charged: number;
  readonly answered: number;
  readonly inFlightAtCutOff: number;
  readonly reconcileDifferences: number;
}

/** The first `count` cases the source reads, and only those. */
function firstCases(source: CorpusSource, count: number): CorpusSource {
  return {
    ...source,
    async *read(ctx) {
      let taken = 0;
      for await (const row of source.read(ctx)) {
        if (!('ok' in row)) continue;
        if (taken >= count) return;
        taken += 1;
        yield row;
      }
    },
  };
}

const noCpu: CpuSplit = { service: 0, postgres: 0, redis: 0, loadGenerator: 0 };

function perRequest(spent: CpuSplit, runs: readonly WrkResult[]): CpuPerRequest {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const ms = (seconds: number) => Math.round((seconds * 1000 * 1000) / Math.max(1, requests)) / 1000;
  return { service: ms(spent.service), postgres: ms(spent.postgres), redis: ms(spent.redis), loadGenerator: ms(spent.loadGenerator) };
}

/** A wrk script reading the cases in turn, each request with the next key. */
function mixScript(basePath: string, caseIds: readonly string[], keys: readonly string[]): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-reads-'));
  const path = join(dir, 'mix.lua');
  const list = (xs: readonly string[]) => xs.map((x) => `"${x}"`).join(',');
  writeFileSync(
    path,
    `local keys = {${list(keys)}}\nlocal cases = {${list(caseIds.map((id) => `${basePath}/cases/${encodeURIComponent(id)}`))}}\n` +
      `local i = 0\nrequest = function()\n  i = i + 1\n  return wrk.format("GET", cases[i % #cases + 1], { ["X-API-Key"] = keys[i % #keys + 1] })\nend\n`,
  );
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function benchChargedReads(
  adminUrl: string,
  redisUrl: string,
  options: { runs?: number; seconds?: number; cases?: number; processes?: readonly string[]; profileDir?: string } = {},
): Promise<ChargedReadsFigures> {
  const runs = options.runs ?? 3;
  const seconds = options.seconds ?? 4;
  const database = await freshDatabase(adminUrl, 'bench_charged_reads');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-reads-data-'));
  const bare = await serveBare();
  const scripts: { remove: () => void }[] = [];
  try {
    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date(), sources: [firstCases(scInAbsSource, options.cases ?? 60)] });
    const { rows: held } = await sql<{ caseId: string }>`
      select case_id as "caseId" from cases where text is not null order by case_id`.execute(database.db);
    const caseIds = held.map((r) => r.caseId);
    const keys = (
      await fundedKeys(
        database.db,
        Array.from({ length: ACCOUNTS }, (_, i) => ({ email: `reader-${String(i)}@lawfirm.example`, credits: 10_000_000 })),
      )
    ).map((k) => k.key);
    const services: ChargedReadsRun[] = [];
    const bareRuns: WrkResult[] = [];
    /** Every wrk run of charged reads, warm-ups included: the ledger is checked against all of them. */
    const charged: WrkResult[] = [];
    let first = true;
    for (const processes of options.processes ?? ['1', 'auto']) {
      const service = await serveChild({
        databaseUrl: database.url,
        redisUrl,
        dataDir,
        // Test mode off: its fixture corpus (PDFs, chunks) is start-up work that no measured route uses.
        env: { API_PROCESSES: processes, TEST_MODE: 'false' },
        ...(options.profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] } : {}),
      });
      try {
        await service.settled(options.profileDir ? 0.3 : undefined);
        const basePath = new URL(service.root).pathname;
        const one = mixScript(basePath, caseIds, keys.slice(0, 1));
        const many = mixScript(basePath, caseIds, keys);
        scripts.push(one, many);
        const keyed = { headers: { 'X-API-Key': keys[0]! } };
        const load = {
          health: (s: number) => wrk(`${service.root}/health`, { connections: CONNECTIONS, durationSeconds: s }),
          me: (s: number) => wrk(`${service.root}/me`, { ...keyed, connections: CONNECTIONS, durationSeconds: s }),
          oneAccount: (s: number) => wrk(`${service.root}/health`, { script: one.path, connections: CONNECTIONS, durationSeconds: s }),
          accounts: (s: number) => wrk(`${service.root}/health`, { script: many.path, connections: CONNECTIONS, durationSeconds: s }),
        };
        // Warm-up: JIT, pools, the key cache, every case's marks planned.
        if (bareRuns.length === 0) await wrk(bare.url, { connections: CONNECTIONS, durationSeconds: 2 });
        for (const run of [load.health, load.me]) await run(2);
        charged.push(await load.oneAccount(2), await load.accounts(2));
        const results = { health: [] as WrkResult[], me: [] as WrkResult[], oneAccount: [] as WrkResult[], accounts: [] as WrkResult[] };
        const spent: Record<LoadKind, CpuSplit> = { health: noCpu, me: noCpu, oneAccount: noCpu, accounts: noCpu };
        /** Runs one load and adds the CPU each party used meanwhile to its kind's total. */
        const measured = async (kind: LoadKind): Promise<WrkResult> => {
          const before = cpuSplit(service.pid);
          const result = await load[kind](seconds);
          const after = cpuSplit(service.pid);
          spent[kind] = {
            service: spent[kind].service + after.service - before.service,
            postgres: spent[kind].postgres + after.postgres - before.postgres,
            redis: spent[kind].redis + after.redis - before.redis,
            loadGenerator: spent[kind].loadGenerator + after.loadGenerator - before.loadGenerator,
          };
          return result;
        };
        for (let i = 0; i < runs; i += 1) {
          if (first) bareRuns.push(await wrk(bare.url, { connections: CONNECTIONS, durationSeconds: seconds }));
          results.health.push(await measured('health'));
          results.me.push(await measured('me'));
          results.oneAccount.push(await measured('oneAccount'));
          results.accounts.push(await measured('accounts'));
        }
        charged.push(...results.oneAccount, ...results.accounts);
        first = false;
        services.push({
          processes,
          health: medianWrk(results.health),
          me: medianWrk(results.me),
          oneAccount: medianWrk(results.oneAccount),
          accounts: medianWrk(results.accounts),
          cpu: {
            health: perRequest(spent.health, results.health),
            me: perRequest(spent.me, results.me),
            oneAccount: perRequest(spent.oneAccount, results.oneAccount),
            accounts: perRequest(spent.accounts, results.accounts),
          },
        });
      } finally {
        await service.stop();
      }
    }
    return { runs, seconds, cases: caseIds.length, bare: medianWrk(bareRuns), services, ...(await ledgerAfter(database.db, charged)) };
  } finally {
    for (const script of scripts) script.remove();
    bare.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

/** Credits spent against the reads wrk counted, and the ledger reconciled (ClickHouse usage is not run here). */
async function ledgerAfter(db: Db, runs: readonly WrkResult[]) {
  const { rows } = await sql<{ charged: number }>`select coalesce(sum(amount), 0)::int as charged from credit_charges`.execute(db);
  const report = await reconcileLedger({ db, events: eventStoreOf(db), analytics: null }, {});
  return {
    charged: rows[0]!.charged,
    answered: runs.reduce((n, r) => n + r.requests - r.failures, 0),
    // A request wrk timed out on may still have been answered and charged, as one in flight when a run stops.
    inFlightAtCutOff: CONNECTIONS * runs.length + runs.reduce((n, r) => n + r.failures, 0),
    reconcileDifferences: report.differences.length,
  };
}

export function printChargedReads(f: ChargedReadsFigures): void {
  console.log(
    `\nCharged reads beside the gate (wrk -t1 -c${String(CONNECTIONS)}, ${String(f.seconds)} s runs, medians of ${String(f.runs)}, interleaved; ${String(f.cases)} real cases, 1 credit each)`,
  );
  const row = (label: string, r: WrkResult) => [label, r.perSecond, r.p50Ms, r.p99Ms, r.failures];
  const rows: (string | number)[][] = [['server', 'req/s', 'p50 ms', 'p99 ms', 'failures'], row('bare Hono, @hono/node-server', f.bare)];
  const ratios: (string | number)[][] = [['API_PROCESSES', 'figure', 'value', 'target', 'met']];
  const judge = (processes: string, name: string, value: number, target: number) =>
    ratios.push([processes, name, value, `>= ${String(target)}`, value >= target ? 'yes' : `no (${(value / target).toFixed(2)} of it)`]);
  for (const s of f.services) {
    rows.push(
      row(`API_PROCESSES=${s.processes}: GET /health`, s.health),
      row(`API_PROCESSES=${s.processes}: GET /me`, s.me),
      row(`API_PROCESSES=${s.processes}: read mix, one account`, s.oneAccount),
      row(`API_PROCESSES=${s.processes}: read mix, ${String(ACCOUNTS)} accounts`, s.accounts),
    );
    judge(s.processes, '/health : bare', s.health.perSecond / f.bare.perSecond, 0.5);
    judge(s.processes, '/me : /health', s.me.perSecond / s.health.perSecond, 0.5);
    judge(s.processes, 'mix (one account) : /health', s.oneAccount.perSecond / s.health.perSecond, 0.2);
    judge(s.processes, 'mix, one account, req/s', s.oneAccount.perSecond, 2_000);
    judge(s.processes, `mix, ${String(ACCOUNTS)} accounts, req/s`, s.accounts.perSecond, 3_000);
  }
  console.log(table(rows));
  console.log(table(ratios));
  // What a read costs the machine, by party: the cores over the total is the most this machine can serve.
  const cores = availableParallelism();
  const split: (string | number)[][] = [
    ['API_PROCESSES', 'load', 'service', 'PostgreSQL', 'Redis', 'wrk', 'total', `ceiling on ${String(cores)} cores, req/s`],
  ];
  for (const s of f.services) {
    for (const [name, c] of [
      ['GET /health', s.cpu.health],
      ['GET /me', s.cpu.me],
      ['read mix, one account', s.cpu.oneAccount],
      [`read mix, ${String(ACCOUNTS)} accounts`, s.cpu.accounts],
    ] as const) {
      const total = c.service + c.postgres + c.redis + c.loadGenerator;
      split.push([
        s.processes,
        name,
        c.service,
        c.postgres,
        c.redis,
        c.loadGenerator,
        Math.round(total * 1000) / 1000,
        Math.round((cores * 1000) / total),
      ]);
    }
  }
  console.log('CPU ms per request, by party (all measured runs of the load)');
  console.log(table(split));
  const exact = f.charged >= f.answered && f.charged <= f.answered + f.inFlightAtCutOff && f.reconcileDifferences === 0;
  console.log(
    `ledger: ${String(f.charged)} credits spent, ${String(f.answered)} 2xx reads counted (at most ${String(f.inFlightAtCutOff)} more in flight at the cut-offs or timed out by wrk), ${String(f.reconcileDifferences)} reconciliation differences: ${exact ? 'exact' : 'NOT EXACT'}`,
  );
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  if (!adminUrl || !redisUrl) throw new Error('set TEST_DATABASE_URL and TEST_REDIS_URL: the service runs on PostgreSQL and Redis');
  const env = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const runs = env('CHARGED_READS_RUNS');
  const seconds = env('CHARGED_READS_SECONDS');
  const cases = env('CHARGED_READS_CASES');
  printChargedReads(
    await benchChargedReads(adminUrl, redisUrl, {
      ...(runs ? { runs } : {}),
      ...(seconds ? { seconds } : {}),
      ...(cases ? { cases } : {}),
      ...(process.env.CHARGED_READS_PROFILE ? { profileDir: process.env.CHARGED_READS_PROFILE } : {}),
      ...(process.env.CHARGED_READS_PROCESSES ? { processes: process.env.CHARGED_READS_PROCESSES.split(',').map((p) => p.trim()) } : {}),
    }),
  );
}
