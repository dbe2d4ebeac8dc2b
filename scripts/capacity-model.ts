/**
 * The capacity model behind docs/scaling.md: what serving the spec's corpus (315.6 million
 * keyword records, 2 million semantic cases) takes on distributed engines, worked out from
 * figures measured on our 2-core development machine. Deterministic: the same inputs print
 * the same table. Inputs are the constants below (MEASURED says where each was measured,
 * ASSUMED why each was chosen) and the High Court judgment counts, read at run time from
 * ../shared/data (never copied into this repository).
 *
 *   node --import tsx scripts/capacity-model.ts [--peak-rps N]
 *
 * Every component is sized the same way: a demand in cores, memory and disk; a node shape;
 * nodes = the ceiling of demand over (node capacity x target utilisation) for each resource,
 * at least the component's minimum for availability. The resource with the highest
 * utilisation binds, and the component whose binding utilisation is highest saturates first
 * as load or corpus grows.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const GiB = 1024 ** 3;
const TiB = 1024 ** 4;
const SECONDS_PER_DAY = 86_400;

/**
 * Figures measured on this machine (2 shared cores). "perf" is docs/performance.md; "scaling"
 * is a measurement listed with its command in docs/scaling.md ("Measurements behind the
 * model").
 */
export const MEASURED = {
  /** perf, hot path, final tree: keyed GET /me req/s on 2 cores (gate + durable audit row). */
  meRequestsPerSecond: 5_830,
  /** perf, charged reads, final tree: GET /cases/:id on one hot account, 32 connections. */
  chargedHotRequestsPerSecond: 523,
  /** perf, charged reads, final tree: the same over 1,000 accounts (PostgreSQL-bound). */
  chargedSpreadRequestsPerSecond: 137,
  /** perf: every whole-path figure above shared this many cores with its load generator. */
  benchCores: 2,
  /** perf, keyword search over HTTP, Meilisearch, 100,000 documents: req/s on 2 cores. */
  keywordHttpAt100k: 80.3,
  /** perf, the same at 1,000,000 documents. */
  keywordHttpAt1M: 63.7,
  /** perf, Meilisearch indexing: one addition of 5,000 documents near 1M documents took 4.0 s. */
  meiliIndexDocsPerSecond: 5_000 / 4.0,
  /** perf, event-loop hold p50 on PostgreSQL, worst input per route (ms of the service's own CPU). */
  apiHoldMs: { keyword: 5.0, semantic: 11.7, caseRead: 25.0, pdf: 1.8, screening: 13.4, workflow: 16.2 },
  /** scaling: Meilisearch's own CPU per keyword search (the bench's query mix) at 33,033 documents. */
  meiliCoreMsPerQueryAt33k: 3.25,
  /** scaling: Meilisearch bytes (usedDatabaseSize) per metadata-only document. */
  meiliBytesPerMetadataDoc: 3_101,
  /** scaling: Meilisearch bytes per character of judgment text (149 judgments, 6.79M characters). */
  meiliBytesPerTextChar: 7.86,
  /** scaling: Meilisearch's stored JSON per document (avgDocumentSize), the raw document. */
  rawBytesPerMetadataDoc: 667,
  /** scaling: `cases` heap + indexes per metadata-only row (33,033 rows ingested). */
  caseRowBytes: 1_174,
  /** scaling: of which the five B-tree indexes. */
  caseIndexBytesPerRow: 283,
  /** scaling: `cases` TOAST per character of judgment text (compressed text and summary). */
  caseTextBytesPerChar: 0.565,
  /** scaling: average characters of the 149 Supreme Court judgments with text in ../shared/data. */
  scCharsPerJudgment: 45_541,
  /** scaling: chunks per Supreme Court judgment (the real chunker, USE_LITE_CHUNKING). */
  scChunksPerCase: 20.19,
  /** scaling: characters of source text per chunk, judgments below the 32-chunk cap. */
  sourceCharsPerChunk: 1_373,
  /** scaling: pgvector HNSW (m 16, ef_construction 64, cosine) bytes per 512-d vector, 20,000 vectors. */
  hnswBytesPerVector512: 2_731,
  /** scaling: heap + TOAST per row holding one 512-d vector. */
  vectorHeapBytesPerRow512: 2_833,
  /** scaling: HNSW build, one core, 20,000 vectors in 12.96 s. */
  hnswBuildVectorsPerSecondAt20k: 20_000 / 12.96,
  /** scaling: one HNSW walk (ef_search 100, 84 nearest, index cached) at 20,000 vectors, ms. */
  hnswWalkMsAt20k: 2.93,
  hnswProbeVectors: 20_000,
  /** scaling: Universal Sentence Encoder lite, chunks of 1,586 characters embedded per second (one worker). */
  embedChunksPerSecond: 11.2,
  /** scaling: PostgreSQL bytes per audited, uncharged request (a stream row and an event row). */
  auditBytesPerRequest: 1_233,
  /** scaling: PostgreSQL bytes per charged request (audit + CreditsCharged event + credit_charges row). */
  chargedBytesPerRequest: 2_462,
  /** scaling: ClickHouse audit_events bytes on disk per row after merges (1M rows of the real shape). */
  clickhouseBytesPerRow: 98.7,
  /** scaling: `court-records ingest` of the 33,033-row corpus took 6.27 s on 2 cores. */
  ingestRowsPerSecond: 33_033 / 6.27,
  /** scaling: events in a saved successful analysis history (test/histories/analysis-success.history.pb). */
  workflowHistoryEvents: 17,
  /** scaling: bytes of that history. */
  workflowHistoryBytes: 3_354,
} as const;

/** Inputs not measured here: each is a stated choice, changed here and nowhere else. */
export const ASSUMED = {
  /** Spec: keyword search over about 315.6 million records. */
  keywordRecords: 315_600_000,
  /** Spec: semantic search over about 2 million analysed cases. */
  semanticCases: 2_000_000,
  /** Public Supreme Court bulk set: about 35,000 English judgments (ours holds 32,769 of their metadata rows). */
  scJudgments: 35_000,
  /**
   * Characters of text per High Court judgment. Not measured: no HC text is in ../shared/data. The
   * bulk set is 1.25 TiB of PDFs for about 17.8M judgments, 75 KB of compressed PDF each, about
   * three to five pages of orders; at some 3,000 characters a page that is 12,000.
   */
  hcCharsPerJudgment: 12_000,
  /** An analysed case also has a summary, chunked first: one more chunk. */
  summaryChunksPerCase: 1,
  /** USE_LITE_CHUNKING.maxChunks. */
  maxChunksPerCase: 32,
  embeddingDimensions: 512,
  /** Complete years of growth averaged (the CSV's latest year is part of a year: taken 2026-05-14). */
  recentYears: 3,
  /** Plan every resource to this fraction, leaving room for bursts, merges, vacuum and failover. */
  targetUtilisation: 0.7,
  /** Daily average load over the peak the table is sized for. */
  averageToPeak: 0.25,
  /** Share of the peak by route class (the spec gives no traffic figures). */
  mix: { keyword: 0.35, semantic: 0.1, caseRead: 0.35, pdf: 0.05, screening: 0.05, workflow: 0.01, unmetered: 0.09 },
  /** A litigation check runs up to eight name searches (docs/performance.md). */
  keywordQueriesPerScreening: 8,
  /** Case-store reads per request: a search page's listing and restriction check, a check's candidates. */
  caseStoreReadsPer: { keyword: 2, semantic: 2, caseRead: 1, pdf: 1, screening: 10, workflow: 2 },
  /** Audit events stay in PostgreSQL this long (monthly partitions dropped once in ClickHouse). */
  auditRetentionDaysInPostgres: 90,
  /** Ledger events and charge rows are kept: the horizon sized for. */
  ledgerYears: 3,
  /** Events read hot (projectors, reconciliation of recent days). */
  ledgerHotDays: 7,
  /** ClickHouse keeps the audit trail this long. */
  clickhouseRetentionDays: 730,
  /** ClickHouse CPU per inserted row, core-ms (chdb merged 1M generated rows in under 5 s on one core). */
  clickhouseCoreMsPerRow: 0.005,
  /** ClickHouse memory per replica for merges and FINAL reads of a month's partition. */
  clickhouseMemoryPerCopy: 16 * GiB,
  /** case_chunks columns beside the vector (ids, model, hash, filter columns) and their B-tree and GIN indexes. */
  vectorRowExtraBytes: 350,
  /** Temporal history events one core of history service handles per second (not measured). */
  temporalEventsPerCoreSecond: 250,
  temporalRetentionDays: 7,
  /** Temporal services' memory per node (history caches, matching queues). */
  temporalMemoryPerNode: 8 * GiB,
  /** Redis EVALs per second on its one thread (not measured; the order redis-benchmark reports). */
  redisOpsPerSecond: 80_000,
  /** Redis scripts per keyed request: the per-key limit and the distinct-keys set; case reads add a quota. */
  redisOpsPerKeyed: 2,
  redisBytes: 2 * GiB,
  /** Node memory per busy API core (heap, the local embedding model, buffers). */
  apiMemoryPerCore: 1 * GiB,
  /** OpenSearch (not run here): index bytes per raw document byte and per text character. */
  openSearchBytesPerRawByte: 1.0,
  openSearchBytesPerTextChar: 1.0,
  /** OpenSearch primary shard size to aim for. */
  openSearchShardBytes: 40 * GiB,
  /** Part of an OpenSearch index held in the page cache. */
  openSearchHotFraction: 0.5,
} as const;

export type Resource = 'cpu' | 'memory' | 'disk';

export interface NodeShape {
  readonly cores: number;
  readonly memoryBytes: number;
  readonly diskBytes: number;
}

/** Totals across every copy a component keeps. */
export interface Demand {
  readonly cpuCores: number;
  readonly memoryBytes: number;
  readonly diskBytes: number;
}

export interface ComponentPlan {
  readonly component: string;
  readonly engine: string;
  readonly nodes: number;
  readonly shape: NodeShape;
  readonly demand: Demand;
  readonly utilisation: Readonly<Record<Resource, number>>;
  readonly binding: Resource;
  readonly layout: string;
}

const shape = (cores: number, memoryGiB: number, diskGiB: number): NodeShape => ({
  cores,
  memoryBytes: memoryGiB * GiB,
  diskBytes: diskGiB * GiB,
});

/** Node shapes (assumed: common cloud sizes). */
export const SHAPES = {
  api: shape(8, 16, 50),
  meilisearch: shape(32, 256, 3_840),
  openSearch: shape(16, 64, 1_920),
  caseStore: shape(16, 128, 3_840),
  ledger: shape(16, 64, 3_840),
  clickhouse: shape(16, 64, 7_680),
  vectors: shape(16, 128, 1_920),
  temporal: shape(8, 16, 100),
  // Redis runs its commands on one thread: one usable core.
  redis: shape(1, 16, 50),
} as const;

/** The smallest whole number of nodes that carries `load` at `capacityPerNode` each. */
export function nodesFor(load: number, capacityPerNode: number): number {
  if (!(capacityPerNode > 0)) throw new RangeError('capacity per node must be positive');
  return Math.ceil(load / capacityPerNode);
}

export function utilisationOf(demand: Demand, nodes: number, node: NodeShape): Record<Resource, number> {
  return {
    cpu: demand.cpuCores / (nodes * node.cores),
    memory: demand.memoryBytes / (nodes * node.memoryBytes),
    disk: demand.diskBytes / (nodes * node.diskBytes),
  };
}

export function bindingResource(utilisation: Readonly<Record<Resource, number>>): Resource {
  const order: readonly Resource[] = ['cpu', 'memory', 'disk'];
  return order.reduce((best, r) => (utilisation[r] > utilisation[best] ? r : best));
}

/** Sizes a component: enough nodes for each resource at the target utilisation, and at least `minNodes`. */
export function plan(
  component: string,
  engine: string,
  demand: Demand,
  node: NodeShape,
  options: { readonly minNodes: number; readonly target: number; readonly layout: string },
): ComponentPlan {
  const nodes = Math.max(
    options.minNodes,
    nodesFor(demand.cpuCores, node.cores * options.target),
    nodesFor(demand.memoryBytes, node.memoryBytes * options.target),
    nodesFor(demand.diskBytes, node.diskBytes * options.target),
  );
  const utilisation = utilisationOf(demand, nodes, node);
  return { component, engine, nodes, shape: node, demand, utilisation, binding: bindingResource(utilisation), layout: options.layout };
}

/** The component that runs out first as load or corpus grows: the highest binding utilisation. */
export function saturatingFirst(plans: readonly ComponentPlan[]): ComponentPlan {
  const first = plans[0];
  if (!first) throw new RangeError('no components');
  return plans.reduce((best, p) => (p.utilisation[p.binding] > best.utilisation[best.binding] ? p : best), first);
}

// ---- The corpus ----

export interface CourtYearCount {
  readonly court: string;
  readonly year: number;
  readonly judgments: number;
}

/** The `court_name`, `year` and `portal_total` columns of portal_vs_s3_all_years_complete_*.csv. */
export function parsePortalTotals(csv: string): CourtYearCount[] {
  const [header, ...lines] = csv.trim().split(/\r?\n/);
  const columns = (header ?? '').split(',');
  const at = (name: string): number => {
    const i = columns.indexOf(name);
    if (i < 0) throw new Error(`portal CSV has no ${name} column`);
    return i;
  };
  const [court, year, total] = [at('court_name'), at('year'), at('portal_total')];
  return lines.map((line, n) => {
    // The file has no quoted fields; one would shift the columns, so refuse it.
    if (line.includes('"')) throw new Error(`portal CSV line ${String(n + 2)} has a quoted field`);
    const cells = line.split(',');
    const judgments = Number(cells[total]);
    if (!Number.isInteger(judgments) || judgments < 0) throw new Error(`portal CSV line ${String(n + 2)}: bad portal_total`);
    return { court: cells[court] ?? '', year: Number(cells[year]), judgments };
  });
}

export interface Corpus {
  readonly keywordRecords: number;
  readonly scJudgments: number;
  readonly hcJudgments: number;
  /** Judgments with text (Supreme Court and High Courts); the other keyword records are metadata only. */
  readonly textJudgments: number;
  readonly metadataRecords: number;
  readonly textChars: number;
  readonly semanticCases: number;
  readonly semanticChunks: number;
  /** High Court judgments added per recent complete year. */
  readonly hcGrowthPerYear: number;
  readonly hcByCourt: readonly { readonly court: string; readonly judgments: number }[];
  readonly hcRecentYears: readonly { readonly year: number; readonly judgments: number }[];
}

export function hcChunksPerCase(): number {
  return Math.min(
    ASSUMED.maxChunksPerCase,
    Math.ceil(ASSUMED.hcCharsPerJudgment / MEASURED.sourceCharsPerChunk) + ASSUMED.summaryChunksPerCase,
  );
}

export function corpusFrom(hc: readonly CourtYearCount[]): Corpus {
  const hcJudgments = hc.reduce((n, r) => n + r.judgments, 0);
  const byCourt = new Map<string, number>();
  const byYear = new Map<number, number>();
  for (const r of hc) {
    byCourt.set(r.court, (byCourt.get(r.court) ?? 0) + r.judgments);
    byYear.set(r.year, (byYear.get(r.year) ?? 0) + r.judgments);
  }
  const years = [...byYear.keys()].sort((a, b) => a - b);
  // The latest year is partial (the audit was taken mid-year): growth is read from the complete ones before it.
  const recent = years.slice(-1 - ASSUMED.recentYears, -1).map((year) => ({ year, judgments: byYear.get(year) ?? 0 }));
  const hcGrowthPerYear = recent.length === 0 ? 0 : recent.reduce((n, r) => n + r.judgments, 0) / recent.length;
  const textJudgments = ASSUMED.scJudgments + hcJudgments;
  // The semantic subset: every Supreme Court judgment, the rest High Court judgments.
  const semanticSc = Math.min(ASSUMED.scJudgments, ASSUMED.semanticCases);
  const semanticChunks = semanticSc * MEASURED.scChunksPerCase + (ASSUMED.semanticCases - semanticSc) * hcChunksPerCase();
  return {
    keywordRecords: ASSUMED.keywordRecords,
    scJudgments: ASSUMED.scJudgments,
    hcJudgments,
    textJudgments,
    metadataRecords: Math.max(0, ASSUMED.keywordRecords - textJudgments),
    textChars: ASSUMED.scJudgments * MEASURED.scCharsPerJudgment + hcJudgments * ASSUMED.hcCharsPerJudgment,
    semanticCases: ASSUMED.semanticCases,
    semanticChunks,
    hcGrowthPerYear,
    hcByCourt: [...byCourt].map(([court, judgments]) => ({ court, judgments })).sort((a, b) => b.judgments - a.judgments),
    hcRecentYears: recent,
  };
}

// ---- The load ----

/** Requests per second at the peak, by route class. */
export interface Load {
  readonly keyword: number;
  readonly semantic: number;
  readonly caseRead: number;
  readonly pdf: number;
  readonly screening: number;
  readonly workflow: number;
  readonly unmetered: number;
}

export function loadAt(peakRps: number): Load {
  const m = ASSUMED.mix;
  return {
    keyword: peakRps * m.keyword,
    semantic: peakRps * m.semantic,
    caseRead: peakRps * m.caseRead,
    pdf: peakRps * m.pdf,
    screening: peakRps * m.screening,
    workflow: peakRps * m.workflow,
    unmetered: peakRps * m.unmetered,
  };
}

export const totalRps = (l: Load): number => l.keyword + l.semantic + l.caseRead + l.pdf + l.screening + l.workflow + l.unmetered;
export const chargedRps = (l: Load): number => totalRps(l) - l.unmetered;

// ---- Per-component demands ----

/** Core-ms of a whole measured path: the cores it shared over the requests per second it served. */
const coreMsPer = (requestsPerSecond: number): number => (MEASURED.benchCores * 1000) / requestsPerSecond;

/**
 * The keyword engine's own core-ms per query on one shard of `docs` documents: the direct
 * measurement at 33k, growing by what the whole HTTP path grew per tenfold documents
 * (100k to 1M), taken as the engine's growth since nothing else on the path depends on the
 * index size. Logarithmic in documents, as an inverted index's posting lists are.
 */
export function engineCoreMsPerShardQuery(docs: number): number {
  const perDecade = coreMsPer(MEASURED.keywordHttpAt1M) - coreMsPer(MEASURED.keywordHttpAt100k);
  return MEASURED.meiliCoreMsPerQueryAt33k + perDecade * Math.max(0, Math.log10(docs / 33_033));
}

export const keywordQueriesPerSecond = (l: Load): number => l.keyword + l.screening * ASSUMED.keywordQueriesPerScreening;

export function apiPlan(load: Load): ComponentPlan {
  const h = MEASURED.apiHoldMs;
  const gate = coreMsPer(MEASURED.meRequestsPerSecond);
  const embedMs = 1000 / MEASURED.embedChunksPerSecond;
  const coreMs =
    totalRps(load) * gate +
    load.keyword * h.keyword +
    load.semantic * (h.semantic + embedMs) +
    load.caseRead * h.caseRead +
    load.pdf * h.pdf +
    load.screening * h.screening +
    load.workflow * h.workflow;
  const cpuCores = coreMs / 1000;
  return plan(
    'API (Node, stateless)',
    'Hono on Node',
    { cpuCores, memoryBytes: cpuCores * ASSUMED.apiMemoryPerCore, diskBytes: 0 },
    SHAPES.api,
    {
      minNodes: 2,
      target: ASSUMED.targetUtilisation,
      layout: 'behind a load balancer; query embedding on the local model',
    },
  );
}

/** Meilisearch Enterprise Edition sharding: every shard in RAM (as measured), each on its own node. */
export function meilisearchPlan(corpus: Corpus, load: Load): ComponentPlan {
  const indexBytes = corpus.metadataRecords * MEASURED.meiliBytesPerMetadataDoc + corpus.textChars * MEASURED.meiliBytesPerTextChar;
  const node = SHAPES.meilisearch;
  const shards = nodesFor(indexBytes, node.memoryBytes * ASSUMED.targetUtilisation);
  const cpuCores = (keywordQueriesPerSecond(load) * shards * engineCoreMsPerShardQuery(corpus.keywordRecords / shards)) / 1000;
  const copies = Math.max(2, nodesFor(cpuCores, shards * node.cores * ASSUMED.targetUtilisation));
  const demand = { cpuCores, memoryBytes: indexBytes * copies, diskBytes: indexBytes * copies };
  return plan('Keyword index', 'Meilisearch EE (sharded)', demand, node, {
    minNodes: shards * copies,
    target: ASSUMED.targetUtilisation,
    layout: `${String(shards)} shards x ${String(copies)} replicas, one shard a node`,
  });
}

/** OpenSearch: shards of a set size spread over nodes, part of the index in the page cache. */
export function openSearchPlan(corpus: Corpus, load: Load): ComponentPlan {
  const indexBytes =
    corpus.metadataRecords * MEASURED.rawBytesPerMetadataDoc * ASSUMED.openSearchBytesPerRawByte +
    corpus.textChars * ASSUMED.openSearchBytesPerTextChar;
  const primaries = nodesFor(indexBytes, ASSUMED.openSearchShardBytes);
  const copies = 2;
  const cpuCores = (keywordQueriesPerSecond(load) * primaries * engineCoreMsPerShardQuery(corpus.keywordRecords / primaries)) / 1000;
  const demand = { cpuCores, memoryBytes: indexBytes * copies * ASSUMED.openSearchHotFraction, diskBytes: indexBytes * copies };
  return plan('Keyword index', 'OpenSearch (recommended)', demand, SHAPES.openSearch, {
    minNodes: 3,
    target: ASSUMED.targetUtilisation,
    layout: `${String(primaries)} primary shards x ${String(copies)} copies`,
  });
}

export function caseStorePlan(corpus: Corpus, load: Load): ComponentPlan {
  const r = ASSUMED.caseStoreReadsPer;
  const reads =
    load.keyword * r.keyword +
    load.semantic * r.semantic +
    load.caseRead * r.caseRead +
    load.pdf * r.pdf +
    load.screening * r.screening +
    load.workflow * r.workflow;
  const copies = 2;
  const bytes = corpus.keywordRecords * MEASURED.caseRowBytes + corpus.textChars * MEASURED.caseTextBytesPerChar;
  const demand = {
    cpuCores: (reads * coreMsPer(MEASURED.chargedHotRequestsPerSecond)) / 1000,
    memoryBytes: corpus.keywordRecords * MEASURED.caseIndexBytesPerRow * copies,
    diskBytes: bytes * copies,
  };
  return plan('Case store', 'PostgreSQL, partitioned by court', demand, SHAPES.caseStore, {
    minNodes: copies,
    target: ASSUMED.targetUtilisation,
    layout: 'primary + streaming replicas serving reads',
  });
}

export function ledgerPlan(load: Load): ComponentPlan {
  const copies = 2;
  const averageRps = totalRps(load) * ASSUMED.averageToPeak;
  const averageCharged = chargedRps(load) * ASSUMED.averageToPeak;
  const auditPerDay = averageRps * SECONDS_PER_DAY * MEASURED.auditBytesPerRequest;
  const ledgerPerDay = averageCharged * SECONDS_PER_DAY * (MEASURED.chargedBytesPerRequest - MEASURED.auditBytesPerRequest);
  const diskBytes = auditPerDay * ASSUMED.auditRetentionDaysInPostgres + ledgerPerDay * 365 * ASSUMED.ledgerYears;
  const demand = {
    cpuCores:
      (chargedRps(load) * coreMsPer(MEASURED.chargedSpreadRequestsPerSecond) + load.unmetered * coreMsPer(MEASURED.meRequestsPerSecond)) /
      1000,
    memoryBytes: (auditPerDay + ledgerPerDay) * ASSUMED.ledgerHotDays * copies,
    diskBytes: diskBytes * copies,
  };
  return plan('Event store and ledger', 'Citus, by billing account', demand, SHAPES.ledger, {
    minNodes: copies,
    target: ASSUMED.targetUtilisation,
    layout: 'workers each with a standby; audit partitions by month',
  });
}

export function clickhousePlan(load: Load): ComponentPlan {
  const copies = 2;
  const rowsPerSecond = totalRps(load);
  const diskBytes =
    rowsPerSecond * ASSUMED.averageToPeak * SECONDS_PER_DAY * MEASURED.clickhouseBytesPerRow * ASSUMED.clickhouseRetentionDays * copies;
  const demand = {
    cpuCores: (rowsPerSecond * ASSUMED.clickhouseCoreMsPerRow * copies) / 1000,
    memoryBytes: ASSUMED.clickhouseMemoryPerCopy * copies,
    diskBytes,
  };
  return plan('Usage and audit', 'ClickHouse, replicated', demand, SHAPES.clickhouse, {
    minNodes: copies,
    target: ASSUMED.targetUtilisation,
    layout: 'shards x 2 replicas, sharded by event_id; 3 Keeper',
  });
}

/** One HNSW walk's ms at `vectors`: the measured walk, growing with the graph's depth (log of its size). */
export function hnswWalkMs(vectors: number): number {
  return MEASURED.hnswWalkMsAt20k * Math.max(1, Math.log(vectors) / Math.log(MEASURED.hnswProbeVectors));
}

export function hnswBytesPerVector(dimensions: number): number {
  return dimensions * 4 + (MEASURED.hnswBytesPerVector512 - 512 * 4);
}

export function vectorPlan(corpus: Corpus, load: Load): ComponentPlan {
  const copies = 2;
  const dims = ASSUMED.embeddingDimensions;
  const hnsw = corpus.semanticChunks * hnswBytesPerVector(dims);
  const heap = corpus.semanticChunks * (dims * 4 + (MEASURED.vectorHeapBytesPerRow512 - 512 * 4) + ASSUMED.vectorRowExtraBytes);
  const demand = {
    cpuCores: (load.semantic * hnswWalkMs(corpus.semanticChunks)) / 1000,
    memoryBytes: hnsw * copies,
    diskBytes: (hnsw + heap) * copies,
  };
  return plan('Vector index', `pgvector HNSW, ${String(dims)}-d`, demand, SHAPES.vectors, {
    minNodes: copies,
    target: ASSUMED.targetUtilisation,
    layout: 'primary + replica, whole graph in RAM',
  });
}

export function temporalPlan(load: Load): ComponentPlan {
  const eventsPerSecond = load.workflow * MEASURED.workflowHistoryEvents;
  const demand = {
    cpuCores: eventsPerSecond / ASSUMED.temporalEventsPerCoreSecond,
    memoryBytes: ASSUMED.temporalMemoryPerNode * 3,
    diskBytes: load.workflow * ASSUMED.averageToPeak * SECONDS_PER_DAY * ASSUMED.temporalRetentionDays * MEASURED.workflowHistoryBytes,
  };
  return plan('Workflows', 'Temporal cluster', demand, SHAPES.temporal, {
    minNodes: 3,
    target: ASSUMED.targetUtilisation,
    layout: 'frontend, history, matching on 3 nodes; PostgreSQL persistence',
  });
}

export function redisPlan(load: Load): ComponentPlan {
  const ops = totalRps(load) * ASSUMED.redisOpsPerKeyed + load.caseRead + load.pdf;
  const demand = { cpuCores: ops / ASSUMED.redisOpsPerSecond, memoryBytes: ASSUMED.redisBytes, diskBytes: 0 };
  return plan('Rate limits and cache', 'Redis, primary + replica', demand, SHAPES.redis, {
    minNodes: 2,
    target: ASSUMED.targetUtilisation,
    layout: 'Sentinel for failover',
  });
}

export function capacityModel(corpus: Corpus, load: Load): ComponentPlan[] {
  return [
    apiPlan(load),
    openSearchPlan(corpus, load),
    meilisearchPlan(corpus, load),
    caseStorePlan(corpus, load),
    ledgerPlan(load),
    clickhousePlan(load),
    vectorPlan(corpus, load),
    temporalPlan(load),
    redisPlan(load),
  ];
}

/** One-off work to build the indexes from nothing, in core-hours of the measured rates. */
export function initialBuild(corpus: Corpus): { readonly step: string; readonly coreHours: number }[] {
  const hnswRate = MEASURED.hnswBuildVectorsPerSecondAt20k / (hnswWalkMs(corpus.semanticChunks) / MEASURED.hnswWalkMsAt20k);
  return [
    {
      step: 'ingest into the case store',
      coreHours: (corpus.keywordRecords / MEASURED.ingestRowsPerSecond) * (MEASURED.benchCores / 3600),
    },
    {
      step: 'Meilisearch indexing (at the rate of one index near 1M docs)',
      coreHours: (corpus.keywordRecords / MEASURED.meiliIndexDocsPerSecond) * (MEASURED.benchCores / 3600),
    },
    {
      step: 'embedding the semantic chunks (local model, one worker thread)',
      coreHours: corpus.semanticChunks / MEASURED.embedChunksPerSecond / 3600,
    },
    { step: 'HNSW build (one core, slowed with depth)', coreHours: corpus.semanticChunks / hnswRate / 3600 },
  ];
}

// ---- Printing ----

export function formatBytes(bytes: number): string {
  if (bytes >= TiB) return `${(bytes / TiB).toFixed(1)} TiB`;
  if (bytes >= GiB) return `${(bytes / GiB).toFixed(1)} GiB`;
  return `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
}

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

export function renderTable(plans: readonly ComponentPlan[]): string {
  const head =
    '| component | engine | layout | nodes | node (cores / RAM / disk) | cores needed | RAM needed | disk needed | CPU / RAM / disk used | binds |';
  const rule = '|---|---|---|---:|---|---:|---:|---:|---|---|';
  const rows = plans.map((p) =>
    [
      p.component,
      p.engine,
      p.layout,
      String(p.nodes),
      `${String(p.shape.cores)} / ${formatBytes(p.shape.memoryBytes)} / ${formatBytes(p.shape.diskBytes)}`,
      p.demand.cpuCores.toFixed(1),
      formatBytes(p.demand.memoryBytes),
      formatBytes(p.demand.diskBytes),
      `${pct(p.utilisation.cpu)} / ${pct(p.utilisation.memory)} / ${pct(p.utilisation.disk)}`,
      p.binding,
    ].join(' | '),
  );
  return [head, rule, ...rows.map((r) => `| ${r} |`)].join('\n');
}

export function renderReport(corpus: Corpus, peakRps: number): string {
  const load = loadAt(peakRps);
  const plans = capacityModel(corpus, load);
  // Meilisearch is shown for comparison; the deployment counted uses OpenSearch.
  const deployed = plans.filter((p) => !p.engine.startsWith('Meilisearch'));
  const first = saturatingFirst(deployed);
  const growth = corpus.hcGrowthPerYear;
  return [
    `Corpus: ${int(corpus.keywordRecords)} keyword records = ${int(corpus.scJudgments)} SC + ${int(corpus.hcJudgments)} HC judgments with text ` +
      `(${(corpus.textChars / 1e9).toFixed(1)} billion characters) + ${int(corpus.metadataRecords)} metadata-only records.`,
    `HC growth: ${corpus.hcRecentYears.map((y) => `${String(y.year)} ${int(y.judgments)}`).join(', ')}; mean ${int(growth)} a year ` +
      `(+${formatBytes(growth * ASSUMED.hcCharsPerJudgment * MEASURED.caseTextBytesPerChar + growth * MEASURED.caseRowBytes)} case store, ` +
      `+${formatBytes(growth * ASSUMED.hcCharsPerJudgment * ASSUMED.openSearchBytesPerTextChar)} OpenSearch text, per copy).`,
    `Semantic: ${int(corpus.semanticCases)} cases, ${int(corpus.semanticChunks)} chunks (SC ${String(MEASURED.scChunksPerCase)} a case, HC ${String(hcChunksPerCase())}).`,
    `Peak load: ${int(peakRps)} req/s (keyword ${int(load.keyword)}, semantic ${int(load.semantic)}, case reads ${int(load.caseRead)}, PDF ${int(load.pdf)}, ` +
      `screening ${int(load.screening)}, workflows ${int(load.workflow)}, unmetered ${int(load.unmetered)}); daily average ${pct(ASSUMED.averageToPeak)} of peak; ` +
      `planned to ${pct(ASSUMED.targetUtilisation)} of each resource.`,
    '',
    renderTable(plans),
    '',
    `Nodes (OpenSearch deployment): ${String(deployed.reduce((n, p) => n + p.nodes, 0))}. Saturates first: ${first.component} ` +
      `(${first.engine}), ${first.binding} at ${pct(first.utilisation[first.binding])}.`,
    '',
    '| initial build | core-hours |',
    '|---|---:|',
    ...initialBuild(corpus).map((b) => `| ${b.step} | ${int(b.coreHours)} |`),
  ].join('\n');
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const PORTAL_CSV = 'hc-courts-reference/portal_vs_s3_all_years_complete_20260514.csv';

export function parsePeakRps(argv: readonly string[]): number {
  const i = argv.indexOf('--peak-rps');
  if (i < 0) return 1_000;
  const value = Number(argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error('--peak-rps takes a positive number');
  return value;
}

async function main(): Promise<void> {
  const dataDir = resolve(repoRoot, process.env['CORPUS_DIR'] ?? '../shared/data');
  const hc = parsePortalTotals(await readFile(join(dataDir, PORTAL_CSV), 'utf8'));
  process.stdout.write(`${renderReport(corpusFrom(hc), parsePeakRps(process.argv.slice(2)))}\n`);
}

// Only run when executed directly, so the unit test can import the model.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
