/** `npm run bench`: prints every benchmark's figures (medians) and ratios. */
import { benchGateThroughput, benchLimiters, benchRevocation } from './access.bench.ts';
import { benchAnalytics } from './analytics.bench.ts';
import { analysisBench } from './analysis.bench.ts';
import { callerTextBench } from './caller-text.bench.ts';
import { benchCluster, printCluster } from './cluster.bench.ts';
import { clusterMissing } from '../test/support/cluster.ts';
import { eventLoopHoldBench, printEventLoopHold } from './event-loop-hold.bench.ts';
import { benchCharging, type SearchAtSize } from './charging.bench.ts';
import { benchEventStore } from './event-store.bench.ts';
import { benchChargedHot, printChargedHot } from './charged-hot.bench.ts';
import { benchChargedReads, printChargedReads } from './charged-reads.bench.ts';
import { benchHotPath, printHotPath } from './hot-path.bench.ts';
import { searchIndexBench } from './search-index.bench.ts';
import { searchHttpBench } from './search-http.bench.ts';
import { printSearchOverhead, searchOverheadBench } from './search-overhead.bench.ts';
import { printSearchApiCost, searchApiCostBench } from './search-api-cost.bench.ts';
import { semanticBench } from './semantic.bench.ts';
import { semanticHttpBench } from './semantic-http.bench.ts';
import { printScreening, screeningBench } from './screening.bench.ts';
import { benchPgliteSearch, printPgliteSearch } from './pglite-search.bench.ts';
import { partyNamesBench, printPartyNames } from './party-names.bench.ts';
import { watermarkBench } from './watermark.bench.ts';
import { benchWebhookFairness, printWebhookFairness } from './webhook-fairness.bench.ts';
import { median, table } from './stats.ts';

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
const na = 'n/a';

console.log('Event store appends per second (durable; median of 5 runs)');
const figures = await benchEventStore(adminUrl);
const pg = figures.postgres;
console.log(
  table([
    ['scenario', 'pglite', 'postgres', 'postgres/pglite'],
    ['1 stream, sequential, expected version', figures.pglite.single, pg ? pg.single : na, pg ? pg.single / figures.pglite.single : na],
    ['1,000 new streams, 10 writers', figures.pglite.many, pg ? pg.many : na, pg ? pg.many / figures.pglite.many : na],
  ]),
);
if (!pg) console.log('(PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)');

console.log('\nAccess gate on the running service (PGlite, 32 clients, 4 s; medians of 3 runs)');
const gate = await benchGateThroughput();
console.log(
  table([
    ['route', 'req/s', 'p50 ms', 'p99 ms', 'failures'],
    ['GET /health (no key)', gate.health.perSecond, gate.health.p50Ms, gate.health.p99Ms, gate.health.failures],
    ['GET /me (key, cached)', gate.me.perSecond, gate.me.p50Ms, gate.me.p99Ms, gate.me.failures],
    [
      'ratio /me : /health',
      gate.me.perSecond / gate.health.perSecond,
      gate.me.p50Ms / gate.health.p50Ms,
      gate.me.p99Ms / gate.health.p99Ms,
      '',
    ],
  ]),
);

if (adminUrl) printHotPath(await benchHotPath(adminUrl));
else console.log('\n(Hot-path benchmark skipped: needs PostgreSQL)');

if (adminUrl && redisUrl) printChargedReads(await benchChargedReads(adminUrl, redisUrl));
else console.log('\n(Charged reads beside the gate skipped: needs PostgreSQL and Redis)');

for (const backend of adminUrl ? (['postgres', 'pglite'] as const) : (['pglite'] as const)) {
  const charged = await benchChargedHot(backend, adminUrl);
  console.log('\nCharged reads through the service (wrk; medians of 3 runs of 5 s)');
  console.log(printChargedHot(charged));
  console.log(
    `ledger after the runs: ${String(charged.charges)} charges (${String(charged.charged)} credits), wrk counted ${String(charged.answered)} 2xx (+ at most ${String(charged.inFlightAtCutOff)} in flight at cut-off); reconciliation differences: ${String(charged.reconcileDifferences)}; ledger events per commit: ${charged.eventsPerCommit.toFixed(1)}`,
  );
}

if (adminUrl) {
  const samples = await benchRevocation(adminUrl, 200);
  console.log(
    `\nRevocation propagation to a second instance (PostgreSQL, poll 200 ms, 10 trials): median ${median(samples).toFixed(0)} ms, max ${Math.max(...samples).toFixed(0)} ms`,
  );
} else {
  console.log('\n(Revocation propagation skipped: needs PostgreSQL for two instances)');
}

const limiters = await benchLimiters();
console.log('\nRate-limit classification against a sliding 60 s oracle (limit 60/min, 4,000 bursty requests)');
console.log(
  table([
    ['store', 'requests', 'refused while under the limit', 'admitted over the sliding limit'],
    ['memory', limiters.memory.requests, limiters.memory.wronglyRefused, limiters.memory.admittedOverSlidingLimit],
  ]),
);

const analytics = await benchAnalytics(process.env.BENCH_CLICKHOUSE_URL);
console.log(
  `\nAnalytics store: ${analytics.chdb.rows} audit rows in batches of ${analytics.chdb.batchSize}, grouped into ${analytics.chdb.groups} (key, day) groups`,
);
console.log(
  table([
    ['engine', 'insert rows/s', 'group-by FINAL ms (median)', 'without FINAL ms', 'FINAL/plain'],
    [
      'chdb (embedded)',
      analytics.chdb.insertRowsPerSecond,
      analytics.chdb.groupByFinalMedianMs,
      analytics.chdb.groupByWithoutFinalMedianMs,
      analytics.chdb.groupByFinalMedianMs / analytics.chdb.groupByWithoutFinalMedianMs,
    ],
    ...(analytics.clickhouse
      ? [
          [
            'clickhouse (HTTP)',
            analytics.clickhouse.insertRowsPerSecond,
            analytics.clickhouse.groupByFinalMedianMs,
            analytics.clickhouse.groupByWithoutFinalMedianMs,
            analytics.clickhouse.groupByFinalMedianMs / analytics.clickhouse.groupByWithoutFinalMedianMs,
          ],
        ]
      : []),
  ]),
);

const corpusDir = process.env.CORPUS_DIR ?? '../shared/data';

function printScaledSearch(scaled: readonly SearchAtSize[]): void {
  console.log('\nKeyword search at scale (SYNTHETIC: real fields recombined; full HTTP path, hot account; bare = index query in process)');
  const base = scaled[0];
  console.log(
    table([
      [
        'documents',
        'HTTP req/s (32)',
        'HTTP p50 ms',
        'HTTP p99 ms',
        '1-client p50 ms',
        'bare p50 ms',
        'bare p99 ms',
        'HTTP:bare p50',
        'p50 vs first',
      ],
      ...scaled.map((s) => [
        `${s.documents} (synthetic)`,
        s.http.perSecond,
        s.http.p50Ms,
        s.http.p99Ms,
        s.httpSingleClient.p50Ms,
        s.bare.p50Ms,
        s.bare.p99Ms,
        s.httpSingleClient.p50Ms / s.bare.p50Ms,
        base ? s.httpSingleClient.p50Ms / base.httpSingleClient.p50Ms : 1,
      ]),
    ]),
  );
  console.log(`Projection into the index: ${scaled.map((s) => `${s.documents} rows in ${s.projectionSeconds.toFixed(0)} s`).join(', ')}`);
}
if (adminUrl) {
  const c = await benchCharging(adminUrl, corpusDir, redisUrl);
  console.log(
    `\nCharged calls through the running service (PostgreSQL${redisUrl ? ' + Redis' : ''}, ${c.corpusRecords} real records indexed, 32 clients, 4 s; medians of 3 runs)`,
  );
  const row = (label: string, r: typeof c.me) => [label, r.perSecond, r.p50Ms, r.p99Ms, r.failures];
  console.log(
    table([
      ['call', 'req/s', 'p50 ms', 'p99 ms', 'failures'],
      row('GET /me, uncharged (hot account)', c.me),
      row('GET /judges/search, 1 credit (hot account)', c.judgesHot),
      row('GET /judges/search, 1 credit (1,000 accounts)', c.judgesSpread),
      row('POST /search/cases, 5 credits (hot account)', c.searchHot),
      row('POST /search/cases, 5 credits (1,000 accounts)', c.searchSpread),
      row('POST /search/cases, 1 client', c.searchSingleClient),
      ['bare index query (in process)', c.bareIndex.perSecondAt32, c.bareIndex.p50Ms, c.bareIndex.p99Ms, ''],
    ]),
  );
  console.log(
    table([
      ['ratio', 'value'],
      ['charged : uncharged req/s (judges, hot : /me)', c.judgesHot.perSecond / c.me.perSecond],
      ['hot account : 1,000 accounts req/s (judges)', c.judgesHot.perSecond / c.judgesSpread.perSecond],
      ['search over HTTP : bare index, p50 at 1 client', c.searchSingleClient.p50Ms / c.bareIndex.p50Ms],
      ['search over HTTP : bare index, throughput at 32', c.searchHot.perSecond / c.bareIndex.perSecondAt32],
    ]),
  );
  console.log(
    `Audit trail to ClickHouse: ${c.auditRowsAwaited} hot-account rows visible in GET /audit ${c.auditLagMs.toFixed(0)} ms after the load stopped`,
  );
  printScaledSearch(c.scaled);
} else {
  console.log('\n(Charged-call benchmark skipped: needs PostgreSQL)');
}

if (adminUrl) await searchIndexBench(adminUrl);
else console.log('\n(Search index benchmark skipped: needs PostgreSQL for the synthetic 100k and 1M sets)');

// Keyword search over HTTP on each backend side by side, and Meilisearch indexing time (prints its own tables).
await searchHttpBench(corpusDir, adminUrl);

if (adminUrl) {
  console.log('\nPOST /search/cases against its index, one request at a time (real corpus; medians of 21)');
  console.log(printSearchOverhead(await searchOverheadBench(adminUrl, corpusDir)));
} else console.log('\n(Search overhead benchmark skipped: needs PostgreSQL)');

// Keyword search on the embedded default at 4 connections, common phrases (and PostgreSQL beside it).
for (const backend of adminUrl ? (['pglite', 'postgres'] as const) : (['pglite'] as const))
  console.log(`\n${printPgliteSearch(await benchPgliteSearch(backend, adminUrl))}`);

if (adminUrl) {
  console.log(
    `\nWhat a keyword search costs the API on top of Meilisearch (child process on PostgreSQL${redisUrl ? ' + Redis' : ''}, real corpus; wrk, medians of 3 runs)`,
  );
  console.log(printSearchApiCost(await searchApiCostBench(adminUrl, redisUrl, corpusDir)));
} else console.log('\n(Search API cost benchmark skipped: needs PostgreSQL)');

await watermarkBench();

callerTextBench();

printEventLoopHold(await eventLoopHoldBench(corpusDir, adminUrl));

await semanticBench();

const semanticHttp = await semanticHttpBench(corpusDir);
console.log(
  `\nPOST /search/cases/semantic over HTTP at ${semanticHttp.vectors} SYNTHETIC vectors (PGlite, real queries embedded per request)`,
);
console.log(
  table([
    ['clients', 'req/s', 'p50 ms', 'p99 ms', 'failures'],
    [1, semanticHttp.at1.perSecond, semanticHttp.at1.p50Ms, semanticHttp.at1.p99Ms, semanticHttp.at1.failures],
    [32, semanticHttp.at32.perSecond, semanticHttp.at32.p50Ms, semanticHttp.at32.p99Ms, semanticHttp.at32.failures],
  ]),
);

printPartyNames(await partyNamesBench(adminUrl));

if (adminUrl) printScreening(await screeningBench(adminUrl, corpusDir, redisUrl));
else console.log('\n(Litigation check benchmark skipped: needs PostgreSQL for the real corpus and the synthetic 1M set)');

const analysis = await analysisBench();
if (analysis) {
  console.log(
    `\nAnalysis (PGlite, Temporal dev server, in-process worker with 2 activity slots, local extractive analyser, ${String(analysis.runs)} runs over a socket)`,
  );
  console.log(
    table([
      ['measure', 'p50', 'p99'],
      ['admission alone, POST → 202 (ms)', analysis.admissionP50Ms, analysis.admissionP99Ms],
      ['admission under load, 16 clients (ms)', analysis.loadedAdmissionP50Ms, analysis.loadedAdmissionP99Ms],
      ['one run alone, 202 → analysis stored (ms)', analysis.runP50Ms, analysis.runP99Ms],
      ['ratio run : admission', analysis.runP50Ms / analysis.admissionP50Ms, analysis.runP99Ms / analysis.admissionP99Ms],
    ]),
  );
  console.log(
    `throughput, 100 admitted at once by 16 clients: ${analysis.throughputPerSecond.toFixed(1)} analyses/s; failures ${String(analysis.failures)}`,
  );
} else {
  console.log('\n(Analysis skipped: no Temporal CLI at TEMPORAL_CLI_PATH, on PATH or at ../shared/bin/temporal)');
}

const fairness = await benchWebhookFairness();
console.log(
  fairness ? `\n${printWebhookFairness(fairness)}` : '\n(Webhook fairness skipped: needs TEST_DATABASE_URL and the Temporal CLI)',
);

if (clusterMissing) console.log(`\n(Cluster benchmark skipped: ${clusterMissing})`);
else {
  const cluster = await benchCluster();
  console.log(
    `\nCluster: 1, 2 and 3 API instances on the same engines through HAProxy TLS (2 shared cores; medians of ${String(cluster.runs)} runs of ${String(cluster.seconds)} s; vs 1: the median of each run's ratio)`,
  );
  console.log(printCluster(cluster));
}
