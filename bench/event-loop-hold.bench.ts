/**
 * How long one request holds the event loop, route by route, on the most hostile input
 * each route accepts: the real app (test/support/app.ts wiring, PGlite, the real corpus of
 * CORPUS_DIR ingested and projected into the keyword index as production does, synthetic
 * vectors for semantic search) served on a loopback socket, its requests sent one at a
 * time from a worker thread, so nothing but the server runs on the measured loop.
 *
 * The measure is the longest synchronous stretch: a 1 ms heartbeat timer records the
 * largest gap between two of its ticks while the request is in flight (an idle loop shows
 * about 1 ms). Each input is sent RUNS times; a row reports the median and the largest
 * hold, and the median time to the full answer. PGlite runs its queries in WebAssembly on
 * this same thread, so on the embedded default a query's own time counts as a hold. With
 * BENCH_DATABASE_URL or TEST_DATABASE_URL set, the same probes run again over PostgreSQL
 * (a database of its own, dropped after), where a query runs in the database's process and
 * only the service's own work holds the loop; without pgvector there, semantic search
 * answers from its keyword fallback.
 *
 * The hostile inputs are at the request caps: the longest query of pathological tokens
 * (test/support/caller-text-parsers.ts), filter lists at their most values and longest
 * lengths, a litigation check of 8 names and 10 known persons of 200 characters and a
 * batch of 25 such checks, the longest case-number and CNR forms for GET /cases/:id and
 * POST /request-timeline, the longest judgment of the corpus read, watermarked and sent
 * whole, and real names that retrieve the corpus's longest judgments as candidates.
 * `npx tsx bench/event-loop-hold.bench.ts` runs it alone (about five minutes on 2 cores).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import postgres from 'postgres';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import { FILTER_LIMITS } from '../src/application/search/search-filters.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Db } from '../src/db/database.ts';
import { openPglite, openPostgres, type OpenedDatabase } from '../src/db/open.ts';
import { MAX_ALIASES, MAX_KNOWN_PERSONS } from '../src/domain/screening/screening-request.ts';
import { courtsReference } from '../src/reference/reference-data.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { buildTestApp, testEmbedder } from '../test/support/app.ts';
import { adversarialText } from '../test/support/caller-text-parsers.ts';
import { serveWithFundedKey } from './served-app.ts';
import { median, table } from './stats.ts';

const RUNS = Number(process.env.BENCH_HOLD_RUNS ?? 5);
/** Synthetic vectors for semantic search: three per Supreme Court metadata record, up to this many. */
const VECTORS = 30_000;
const BATCH_ITEMS = 25;

export interface HoldRow {
  readonly database: 'pglite' | 'postgres';
  readonly route: string;
  readonly input: string;
  readonly status: number;
  readonly holdP50Ms: number;
  readonly holdMaxMs: number;
  readonly totalP50Ms: number;
}

interface Probe {
  readonly route: string;
  readonly input: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
}

/** The longest gap between ticks of a 1 ms timer while it runs: the longest the loop was held. */
class Heartbeat {
  #last = 0;
  #max = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  start(): void {
    this.#last = performance.now();
    this.#max = 0;
    this.#timer = setInterval(() => {
      const now = performance.now();
      this.#max = Math.max(this.#max, now - this.#last);
      this.#last = now;
    }, 1);
  }

  stop(): number {
    clearInterval(this.#timer);
    return Math.max(this.#max, performance.now() - this.#last);
  }
}

/** Sends requests from a worker thread, so the client's own work stays off the measured loop. */
class Client {
  readonly #worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.on('message', async ({ url, init }) => {
       const started = performance.now();
       try {
         const res = await fetch(url, init);
         const text = await res.text();
         parentPort.postMessage({ status: res.status, ms: performance.now() - started, bytes: text.length, head: text.slice(0, 300) });
       } catch (error) {
         parentPort.postMessage({ status: 0, ms: performance.now() - started, bytes: 0, head: String(error) });
       }
     });`,
    { eval: true },
  );

  send(url: string, init: RequestInit): Promise<{ status: number; ms: number; bytes: number; head: string }> {
    return new Promise((resolve) => {
      this.#worker.once('message', resolve);
      this.#worker.postMessage({ url, init });
    });
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}

/** Text of exactly `length` characters: `unit` repeated. */
function fill(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** `text` with every letter moved `by` places along the alphabet: the same shape, other words. */
function shifted(text: string, by: number): string {
  return text.replace(/[A-Za-z]/g, (ch) => {
    const base = ch <= 'Z' ? 65 : 97;
    return String.fromCharCode(base + ((ch.charCodeAt(0) - base + by) % 26));
  });
}

/** Litigation-check fields at every cap: 8 names and 10 known persons of 200 characters, each other words. */
function screeningAtCaps(unit: string, entityType: 'person' | 'company'): Record<string, unknown> {
  const name = fill(unit, 200);
  return {
    name,
    aliases: Array.from({ length: MAX_ALIASES }, (_, i) => shifted(name, i + 1)),
    entityType,
    knownPersons: Array.from({ length: MAX_KNOWN_PERSONS }, (_, i) => shifted(name, MAX_ALIASES + i + 1)),
    address: { city: fill('Mumbai ', 100), state: fill('Maharashtra ', 100) },
    identifiers: { pan: 'AABCB5576G', gstin: '27AAPFU0939F1ZV', cin: 'L17110MH1973PLC019786', llpin: 'AAB-9032' },
    limit: 100,
  };
}

/** A check of real names that retrieve the corpus's longest judgments, every corroboration path on. */
function heavyRealScreening(name: string, aliases: readonly string[]): Record<string, unknown> {
  return {
    name,
    aliases: aliases.slice(0, MAX_ALIASES),
    entityType: 'company',
    knownPersons: [
      'Bachan Singh',
      'Y.V. Chandrachud',
      'P.N. Bhagwati',
      'V.R. Krishna Iyer',
      'Ram Kumar Sharma',
      'Sunil Batra',
      'Maneka Gandhi',
      'A.N. Ray',
      'M.H. Beg',
      'S. Murtaza Fazal Ali',
    ],
    address: { city: 'New Delhi', state: 'Delhi' },
    identifiers: { pan: 'AABCB5576G', cin: 'L17110MH1973PLC019786' },
    limit: 100,
  };
}

const PATHOLOGICAL_QUERIES: readonly (readonly [string, (length: number) => string])[] = [
  ['913-character report shape padded', (n) => adversarialText('ABCD', `${' '.repeat(300)}12${' '.repeat(300)}123456`, 'X', n)],
  ['"Civil Appeal No. 12 " repeated', (n) => fill('Civil Appeal No. 12 ', n)],
  ['one-letter words', (n) => fill('a ', n)],
  ['"GAHC01-022550-2018 " repeated', (n) => fill('GAHC01-022550-2018 ', n)],
  ['real words repeated', (n) => fill('union of india land acquisition compensation sharma ', n)],
];

/** The probes: every keyed route (and the public ones) with its most hostile accepted inputs. */
function probes(names: { courts: string[]; caseTypes: string[]; judges: string[]; longest: string; longestNumber: string }): Probe[] {
  const filters = {
    court: names.courts.slice(0, FILTER_LIMITS.court.values),
    caseType: names.caseTypes.slice(0, FILTER_LIMITS.caseType.values),
    judgeName: Array.from({ length: FILTER_LIMITS.judgeName.values }, (_, i) => names.judges[i % names.judges.length] ?? 'X'),
    year: Array.from({ length: FILTER_LIMITS.year.values }, (_, i) => 2024 - i),
  };
  const caseNumbers = Array.from({ length: FILTER_LIMITS.caseNumber.values }, () => fill('Criminal Appeal Nos. 1156-1157, ', 300));
  const search: Probe[] = PATHOLOGICAL_QUERIES.map(([input, text]) => ({
    route: 'POST /search/cases',
    input: `query: 1000 chars, ${input}; limit 100`,
    method: 'POST',
    path: '/search/cases',
    body: { query: text(1000), limit: 100 },
  }));
  const semantic: Probe[] = PATHOLOGICAL_QUERIES.map(([input, text]) => ({
    route: 'POST /search/cases/semantic',
    input: `query: 2000 chars, ${input}; limit 100`,
    method: 'POST',
    path: '/search/cases/semantic',
    body: { query: text(2000), limit: 100 },
  }));
  const hostileIds = [
    ['longest case-number form (300 chars)', fill('Criminal Appeals Nos. 335, 336, 337, 338, 339 of 1977 ', 300)],
    ['pathological case-number tokens (300 chars)', adversarialText('C.A. No.', '-000101', ' - 1959', 300)],
    ['grouped CNR', 'GAHC01-022550-2018'],
    ['the real 238-character case number', names.longestNumber],
  ] as const;
  return [
    ...search,
    {
      route: 'POST /search/cases',
      input: 'every filter at its most values (50 courts, 50 case types, 50 judges, 20 years, 50 case numbers); limit 100',
      method: 'POST',
      path: '/search/cases',
      body: { query: 'appeal', ...filters, caseNumber: caseNumbers, limit: 100 },
    },
    {
      route: 'POST /search/cases',
      input: 'a 1000-char court list of 50 unknown courts (50 problem lines)',
      method: 'POST',
      path: '/search/cases',
      body: { query: 'appeal', court: fill('Court of Narnia Bench ', 1000).split(' ').slice(0, 50).join(',') },
    },
    ...semantic,
    {
      route: 'POST /search/cases/semantic',
      input: 'every filter at its most values; limit 100',
      method: 'POST',
      path: '/search/cases/semantic',
      body: {
        query: 'compensation for land acquired by the state',
        limit: 100,
        filters: {
          court: filters.court,
          caseType: filters.caseType,
          judgeName: filters.judgeName,
          caseYear: filters.year,
          caseNumber: caseNumbers,
        },
      },
    },
    ...hostileIds.map(([input, id]) => ({
      route: 'GET /cases/:id',
      input,
      method: 'GET' as const,
      path: `/cases/${encodeURIComponent(id)}`,
    })),
    {
      route: 'GET /cases/:id',
      input: `the longest judgment (${names.longest}, 559k chars), watermarked`,
      method: 'GET',
      path: `/cases/${names.longest}`,
    },
    { route: 'GET /cases/:id/pdf', input: 'the longest judgment', method: 'GET', path: `/cases/${names.longest}/pdf` },
    { route: 'GET /cases/:id/analysis', input: 'the longest judgment', method: 'GET', path: `/cases/${names.longest}/analysis` },
    {
      route: 'POST /cases/:id/analyze',
      input: 'the longest judgment (no workflow engine: admission, then 502)',
      method: 'POST',
      path: `/cases/${names.longest}/analyze`,
      body: {},
    },
    {
      route: 'POST /cases/:id/analyze-consolidated',
      input: 'the longest judgment (no workflow engine)',
      method: 'POST',
      path: `/cases/${names.longest}/analyze-consolidated`,
      body: {},
    },
    {
      route: 'GET /judges/search',
      input: 'q: 200 chars',
      method: 'GET',
      path: `/judges/search?q=${encodeURIComponent(fill('chandrachud ', 200))}`,
    },
    { route: 'GET /judges/search', input: 'q: "a" (every judge matches)', method: 'GET', path: '/judges/search?q=a' },
    {
      route: 'POST /party/screen',
      input: '8 names + 10 known persons of 200 one-letter words, person, every identifier, address at caps, limit 100',
      method: 'POST',
      path: '/party/screen',
      body: { ...screeningAtCaps('a ', 'person'), purpose: 'kyc' },
    },
    {
      route: 'POST /party/screen',
      input: '8 names + 10 known persons of 200 chars of 4-letter words, company, limit 100, adjudicate',
      method: 'POST',
      path: '/party/screen',
      body: { ...screeningAtCaps('RAMA SITA GOPA ', 'company'), purpose: 'kyc', adjudicate: true },
    },
    {
      route: 'POST /party/screen',
      input: 'real names retrieving the longest judgments (Union of India, State of Punjab, ...), 10 known persons, limit 100, adjudicate',
      method: 'POST',
      path: '/party/screen',
      body: {
        ...heavyRealScreening('Union of India', [
          'State of Punjab',
          'Delhi Transport Corporation',
          'Express Newspapers',
          'Bandhua Mukti Morcha',
          'State of Uttar Pradesh',
          'State of Maharashtra',
          'State of Bihar',
        ]),
        purpose: 'kyc',
        adjudicate: true,
      },
    },
    {
      route: 'POST /party/screen/batch',
      input: `${BATCH_ITEMS} items of 8 names + 10 known persons of 200 chars, limit 100 each`,
      method: 'POST',
      path: '/party/screen/batch',
      body: {
        purpose: 'kyc',
        items: Array.from({ length: BATCH_ITEMS }, (_, i) =>
          screeningAtCaps(shifted('RAMA SITA GOPA ', i), i % 2 === 0 ? 'person' : 'company'),
        ),
      },
    },
    {
      route: 'POST /party/screen/batch',
      input: `${BATCH_ITEMS} items of real names retrieving the longest judgments, limit 100 each`,
      method: 'POST',
      path: '/party/screen/batch',
      body: {
        purpose: 'kyc',
        items: Array.from({ length: BATCH_ITEMS }, (_, i) =>
          heavyRealScreening(
            ['Union of India', 'State of Punjab', 'State of Uttar Pradesh', 'State of Maharashtra', 'State of Rajasthan'][i % 5] ??
              'Union of India',
            ['Delhi Transport Corporation', 'Express Newspapers', 'Bandhua Mukti Morcha'],
          ),
        ),
      },
    },
    ...hostileIds.map(([input, caseId]) => ({
      route: 'POST /request-timeline',
      input: `caseId: ${input}`,
      method: 'POST' as const,
      path: '/request-timeline',
      body: { caseId },
    })),
    {
      route: 'POST /request-timeline',
      input: 'cnr: 30 chars, grouped form in spaces',
      method: 'POST',
      path: '/request-timeline',
      body: { cnr: '      GAHC01-022550-2018      ' },
    },
    { route: 'GET /request-timeline/:requestId', input: '200-char id', method: 'GET', path: `/request-timeline/${fill('tlr_', 200)}` },
    { route: 'GET /me', input: '-', method: 'GET', path: '/me' },
    { route: 'GET /usage', input: '-', method: 'GET', path: '/usage' },
    { route: 'GET /audit', input: 'limit 200 (no analytics store: refused)', method: 'GET', path: '/audit?userId=self&limit=200' },
    { route: 'GET /health', input: 'deep=1', method: 'GET', path: '/health?deep=1' },
    { route: 'GET /coverage', input: 'split=1', method: 'GET', path: '/coverage?split=1' },
    { route: 'GET /reference/courts', input: '-', method: 'GET', path: '/reference/courts' },
    { route: 'GET /reference/case-types', input: '-', method: 'GET', path: '/reference/case-types' },
    { route: 'GET /openapi.json', input: '-', method: 'GET', path: '/openapi.json' },
  ];
}

/** The probes over one database: ingest, project, serve, measure. */
async function measure(kind: 'pglite' | 'postgres', database: OpenedDatabase, corpusDir: string): Promise<HoldRow[]> {
  const client = new Client();
  let close: (() => void) | undefined;
  try {
    const db = database.db;
    await migrate(db);
    await ingestCorpus({ db, corpusDir, now: () => new Date() });
    const index = new PostgresSearchIndex(db);
    await new SearchIndexProjector(db, index, { kind, now: () => new Date(), batchSize: 2_000 }).catchUp();
    if (kind === 'pglite') await syntheticVectors(db);

    const served = await serveWithFundedKey(buildTestApp({ db, index }), {
      email: `event-loop-bench-${kind}@lawfirm.example`,
      credits: 1_000_000_000,
      user: { limitOverrides: { requestsPerMinute: 10_000_000, screeningRequestsPerMinute: 10_000_000, concurrentAnalyses: 1_000 } },
    });
    close = () => served.close();
    const root = served.root;

    const longest = (
      await sql<{ id: string }>`select case_id as id from cases where text is not null order by length(text) desc limit 1`.execute(db)
    ).rows[0]?.id;
    const longestNumber = (
      await sql<{ n: string }>`select case_number as n from cases order by length(case_number) desc limit 1`.execute(db)
    ).rows[0]?.n;
    const judges = (
      await sql<{ j: string }>`select distinct j from cases, jsonb_array_elements_text(judges) j order by j limit 50`.execute(db)
    ).rows.map((r) => r.j);
    // Ids and aliases, never a name with a comma in it (a court list is split on commas).
    const courts = courtsReference()
      .courts.flatMap((c) => [c.id, ...c.aliases])
      .filter((n) => !n.includes(','));
    const caseTypes = [
      'Civil Appeal',
      'Criminal Appeal',
      'Writ Petition (Civil)',
      'Special Leave Petition (Civil)',
      'Transfer Petition (Civil)',
    ];
    const input = probes({
      courts,
      caseTypes: Array.from({ length: FILTER_LIMITS.caseType.values }, (_, i) => caseTypes[i % caseTypes.length] ?? 'Civil Appeal'),
      judges,
      longest: longest ?? 'sc-ik-1201493',
      longestNumber: longestNumber ?? '',
    });

    const headers = { 'X-API-Key': served.key, 'Content-Type': 'application/json' };
    const send = (p: Probe) =>
      client.send(`${root}${p.path.replace('userId=self', `userId=${served.userId}`)}`, {
        method: p.method,
        headers,
        ...(p.body === undefined ? {} : { body: JSON.stringify(p.body) }),
      });
    // Warm every path once (JIT, the local model, the database's caches), then measure.
    for (const p of input) await send(p);
    const heartbeat = new Heartbeat();
    const idle: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      heartbeat.start();
      await new Promise((resolve) => setTimeout(resolve, 200));
      idle.push(heartbeat.stop());
    }
    const rows: HoldRow[] = [
      {
        database: kind,
        route: '(no request: idle loop, 200 ms)',
        input: '-',
        status: 0,
        holdP50Ms: median(idle),
        holdMaxMs: Math.max(...idle),
        totalP50Ms: 200,
      },
    ];
    for (const p of input) {
      const holds: number[] = [];
      const totals: number[] = [];
      let status = 0;
      for (let i = 0; i < RUNS; i += 1) {
        heartbeat.start();
        const answer = await send(p);
        holds.push(heartbeat.stop());
        totals.push(answer.ms);
        status = answer.status;
        if (status === 0 || status >= 500) process.stderr.write(`${kind} ${p.route} ${p.input}: ${String(status)} ${answer.head}\n`);
      }
      rows.push({
        database: kind,
        route: p.route,
        input: p.input,
        status,
        holdP50Ms: median(holds),
        holdMaxMs: Math.max(...holds),
        totalP50Ms: median(totals),
      });
    }
    return rows;
  } finally {
    close?.();
    await client.close();
  }
}

/** A database of its own on the PostgreSQL server at `adminUrl`, dropped on close. */
async function freshPostgres(adminUrl: string): Promise<OpenedDatabase> {
  const name = `bench_event_loop_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const opened = await openPostgres(url.toString(), { max: 20 });
  return {
    ...opened,
    close: async () => {
      await opened.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** The probes on PGlite, then (with `adminUrl`) on PostgreSQL. */
export async function eventLoopHoldBench(corpusDir: string, adminUrl?: string): Promise<HoldRow[]> {
  const rows: HoldRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-event-loop-'));
  try {
    const pglite = await openPglite(dir);
    try {
      rows.push(...(await measure('pglite', pglite, corpusDir)));
    } finally {
      await pglite.close();
    }
    if (adminUrl !== undefined) {
      const pg = await freshPostgres(adminUrl);
      try {
        rows.push(...(await measure('postgres', pg, corpusDir)));
      } finally {
        await pg.close();
      }
    }
  } finally {
    await testEmbedder().close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Clustered random 512-dimension vectors over real case rows, so semantic search has something to rank. */
async function syntheticVectors(db: Db): Promise<void> {
  await sql`drop index if exists case_chunks_use_lite_512_hnsw_idx`.execute(db);
  await sql`create table syn_centres as
    select c, array(select random() * 2 - 1 from generate_series(1, 512) where c >= 0) as v from generate_series(0, 299) c`.execute(db);
  for (let from = 0; from < VECTORS; from += 10_000)
    await sql`insert into case_chunks (case_id, chunk_no, model, input_hash, embedding, court_code, case_type, judges,
        decision_year, decision_date, case_number_key, withheld)
      select c.case_id, n.k / 10000, 'use-lite-512', 'synthetic',
        (select array_agg(x + random() - 0.5 order by o) from unnest(s.v) with ordinality u(x, o))::vector,
        c.court_code, c.case_type, '{}', c.decision_year, c.decision_date, c.case_number_normalised, false
      from generate_series(${from}::int, ${Math.min(VECTORS, from + 10_000) - 1}::int) n(k)
      join (select row_number() over (order by case_id) - 1 as i, * from cases where source = 'sc-judgments-metadata') c on c.i = n.k % 10000
      join syn_centres s on s.c = n.k % 300`.execute(db);
  await sql`create index case_chunks_use_lite_512_hnsw_idx on case_chunks
    using hnsw ((embedding::vector(512)) vector_cosine_ops) where model = 'use-lite-512'`.execute(db);
}

/** Every input measured, then the worst input of each route side by side on both databases. */
export function printEventLoopHold(rows: readonly HoldRow[]): void {
  const kinds = [...new Set(rows.map((r) => r.database))];
  for (const kind of kinds) {
    console.log(`\nEvent-loop hold per input (${kind}, real corpus, one request at a time; ${RUNS} runs each, 1 ms heartbeat)`);
    console.log(
      table([
        ['route', 'hostile input', 'status', 'hold p50 ms', 'hold max ms', 'total p50 ms'],
        ...rows
          .filter((r) => r.database === kind)
          .map((r) => [
            r.route,
            r.input.length > 90 ? `${r.input.slice(0, 89)}…` : r.input,
            String(r.status),
            r.holdP50Ms,
            r.holdMaxMs,
            r.totalP50Ms,
          ]),
      ]),
    );
  }
  const worst = new Map<string, Map<string, HoldRow>>();
  for (const r of rows) {
    const byKind = worst.get(r.route) ?? new Map<string, HoldRow>();
    worst.set(r.route, byKind);
    if ((byKind.get(r.database)?.holdP50Ms ?? -1) < r.holdP50Ms) byKind.set(r.database, r);
  }
  console.log('\nWorst input per route: hold p50 / hold max / total p50, ms');
  console.log(
    table([
      [
        'route',
        ...kinds.map((k) => `${k} hold p50`),
        ...kinds.map((k) => `${k} hold max`),
        ...kinds.map((k) => `${k} total p50`),
        'worst input (pglite)',
      ],
      ...[...worst].map(([route, byKind]) => [
        route,
        ...kinds.map((k) => byKind.get(k)?.holdP50Ms ?? '-'),
        ...kinds.map((k) => byKind.get(k)?.holdMaxMs ?? '-'),
        ...kinds.map((k) => byKind.get(k)?.totalP50Ms ?? '-'),
        byKind.get(kinds[0] ?? 'pglite')?.input.slice(0, 70) ?? '',
      ]),
    ]),
  );
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  printEventLoopHold(
    await eventLoopHoldBench(process.env.CORPUS_DIR ?? '../shared/data', process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL),
  );
}
