/**
 * The SearchIndex port over Meilisearch (used when MEILI_URL is set), through the official
 * client. Meilisearch indexes at most 65,535 positions per attribute, so a long judgment
 * is split into chunks of CHUNK_WORDS words; each chunk is its own Meilisearch document
 * (`<caseId>__<n>`) carrying the case's filter and sort fields, chunk 0 also the parties,
 * title and summary, and `distinctAttribute: caseId` folds them back into one hit per case.
 * Every write waits for its tasks (in bulk, index-schema.ts `succeeded`) and fails if one failed, so `upsert` and
 * `remove` are durable when they resolve. Synonyms are the domain's table of legal
 * abbreviations and the abbreviations the corpus itself writes (party-synonyms.ts), learnt
 * from the party names this index is given: after a write that teaches a new pair the
 * synonyms setting grows (never shrinks, so a restart that has seen few names loses none).
 * Typos are tolerated in words of four letters or more ("bihr" → "bihar"), never in
 * numbers, case numbers or CNRs. Each case also carries its party names with first names
 * cut to initials (`partyInitials`), so "R K Sharma" finds "Ram Kumar Sharma".
 *
 * A case matches as it does on PostgreSQL: every word of the query (matchingStrategy
 * "all", each word typo-tolerant), or a case number or CNR read from the query, looked up
 * by filter: exactly on the stored keys, or on the "NUMBER YEAR" ending a key when the
 * query leaves the type out or misspells it, or a party named exactly as the query
 * (normalised, `partyKeys`). By relevance the exact lookups rank first, then the
 * number-and-year ones, then up to a page of exact parties, then the word hits; a date sort orders every match by
 * date (the `sort` ranking rule comes first), undated cases last both ways and ties by
 * caseId, as on PostgreSQL. `total` is exact below TOTAL_HITS_CAP (an exhaustive count:
 * estimatedTotalHits counts a long judgment's chunks apart, so it moves with the page asked
 * for) and saturates there like the Postgres adapter's count cap. Filters compare stored
 * spellings exactly, through hex keys (see exactKey).
 *
 * Searches go over search-transport.ts (node:http, cheaper per request than the SDK's
 * fetch), in as few requests as the answer allows: the lookups and the withheld check are
 * filter-led queries over few documents, sent as one multi-search (Meilisearch runs its
 * queries one after another, which costs little here, where running the page query in it
 * doubled latency); the word page is asked by page number when its offset falls on a page
 * boundary, so the exhaustive count comes in the same answer.
 *
 * Party retrieval for the litigation check (`searchParties`) searches the `parties`
 * attribute alone with matchingStrategy "all": every word of the normalised name must be
 * there (in the names or their initials form), typo-tolerant. Single letters (initials) are
 * left out of the required words, since Meilisearch matches whole words and "R" would never
 * meet "Rajesh"; the features stage judges initials against the record. They still rank: a
 * second query of every word, initials included (met by `partyInitials`), weighted above the
 * first in one federated search, puts "K S Yadav" ahead of the other Yadavs. One hit more than the limit says whether the page holds
 * every match (`complete`).
 */
import type { FederatedMultiSearchParams, Index, Meilisearch, SearchResponse, Settings } from 'meilisearch';
import { MeilisearchSearchTransport } from './search-transport.ts';
import { meilisearchClient } from './client.ts';
import { normalisePartyName } from '../../domain/search/party-name.ts';
import { abbreviationSynonyms } from '../../domain/search/legal-abbreviations.ts';
import {
  deriveAbbreviations,
  initialsForm,
  mergeSynonyms,
  PartyTokenTally,
  type PartySynonyms,
} from '../../domain/search/party-synonyms.ts';
import { analyseQuery, type AnalysedQuery } from '../../domain/search/query.ts';
import {
  applySettings,
  dropIndex,
  ensureIndex,
  latest,
  migrateIndex,
  recordVersion,
  succeeded,
  type IndexMigration,
  type SchemaState,
} from './index-schema.ts';
import type {
  PartySearchFilters,
  PartySearchIndex,
  PartySearchRequest,
  PartySearchResult,
  ReindexableSearchIndex,
  SearchDocument,
  SearchFilters,
  SearchHit,
  SearchIndex,
  SearchRequest,
  SearchResult,
} from '../../ports/search-index.ts';

/** Well under 65,535 positions: separators and sentence breaks also take positions. */
const CHUNK_WORDS = 20_000;
const TOTAL_HITS_CAP = 10_000;
/** Case-number matches taken ahead of the word search, per kind of lookup (a number names few cases). */
const LOOKUP_LIMIT = 100;
/** What matching a party name's initials too weighs against matching its other words alone. */
const INITIALS_WEIGHT = 2;
/** Scores of the lookups, above any word hit's ranking score (at most 1), exact above number-and-year. */
const EXACT_SCORE = 3;
const NUMBER_YEAR_SCORE = 2;
/** A party named exactly as the query (PostgreSQL adds 1.5 for it too): below a case number, above any word hit. */
const PARTY_SCORE = 1.5;
/**
 * Cases with exactly the party typed taken ahead of the word search: a first page's worth. A
 * common party ("STATE OF PUNJAB") names thousands; the rest follow among the word hits.
 */
const PARTY_LOOKUP_LIMIT = 20;
/** Longer than any party name users type: such a query is a passage, not a name. */
const PARTY_QUERY_MAX_WORDS = 8;
/** Ranking score a case missing a query word needs to fill a short first page: most words, close. */
const PARTIAL_MATCH_SCORE = 0.6;

interface ChunkDocument {
  id: string;
  caseId: string;
  chunk: number;
  caseNumberKey: string;
  /** keyTail(caseNumberKey). */
  caseNumberTail: string | null;
  cnr: string | null;
  /** Filter keys (exactKey) of the court code, the case type and the judges' spellings. */
  courtKey: string;
  caseTypeKey: string | null;
  judgeKeys: string[];
  decisionDay: number | null;
  decisionYear: number | null;
  withheld: boolean;
  caseNumber?: string;
  /** One entry a party. */
  parties?: string[];
  /**
   * exactKey of each party's normalised name: what "exact party first" looks up, since
   * Meilisearch's exactness rule never sees one entry of an array as the whole attribute.
   */
  partyKeys?: string[];
  /** The party names with first names as initials ("R K SHARMA"), where that differs. */
  partyInitials?: string[];
  title?: string | null;
  summary?: string | null;
  text: string;
}

function chunks(text: string | null): string[] {
  const words = (text ?? '').split(/\s+/).filter(Boolean);
  if (words.length === 0) return [''];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += CHUNK_WORDS) out.push(words.slice(i, i + CHUNK_WORDS).join(' '));
  return out;
}

const UTF8 = new TextEncoder();

/**
 * Meilisearch compares filter strings case-insensitively, but a stored spelling is what a
 * filter means ("Writ Petition" and "writ petition" are two case types of the corpus,
 * "S.R. DAS" and "S.R. Das" two judge spellings): filter fields hold each value's UTF-8
 * bytes in hex, which no normalisation merges.
 */
function exactKey(value: string): string {
  return Array.from(UTF8.encode(value), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The "NUMBER YEAR" ending a case-number key after its type ("CA 4292 2002" gives
 * "4292 2002"): what a query's number-and-year meets, as `key like '% NUMBER YEAR'` does on
 * PostgreSQL. Numbers and year hold no space, so they are the key's last two words.
 */
function keyTail(key: string): string | null {
  const words = key.split(' ');
  return words.length >= 3 ? words.slice(-2).join(' ') : null;
}

export function toChunks(doc: SearchDocument): ChunkDocument[] {
  const names = [...doc.petitioners, ...doc.respondents].map(normalisePartyName);
  const shared = {
    caseId: doc.caseId,
    caseNumberKey: doc.caseNumberNormalised,
    caseNumberTail: keyTail(doc.caseNumberNormalised),
    cnr: doc.cnr,
    courtKey: exactKey(doc.courtCode),
    caseTypeKey: doc.caseType === null ? null : exactKey(doc.caseType),
    judgeKeys: doc.judges.map(exactKey),
    decisionDay: doc.decisionDate === null ? null : Number(doc.decisionDate.replace(/-/g, '')),
    decisionYear: doc.decisionYear,
    withheld: doc.withheld,
  };
  return chunks(doc.text).map((text, n) =>
    n === 0
      ? {
          id: `${doc.caseId}__0`,
          chunk: 0,
          ...shared,
          caseNumber: doc.caseNumber,
          parties: names,
          partyKeys: [...new Set(names.filter((n) => n !== ''))].map(exactKey),
          partyInitials: names.flatMap((n) => initialsForm(n) ?? []),
          title: doc.title,
          summary: doc.summary,
          text,
        }
      : { id: `${doc.caseId}__${n}`, chunk: n, ...shared, text },
  );
}

function quoted(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function list(values: readonly (string | number)[]): string {
  return `[${values.map((v) => (typeof v === 'number' ? String(v) : quoted(v))).join(', ')}]`;
}

function keys(values: readonly string[]): string {
  return list(values.map(exactKey));
}

function filterOf(filters: SearchFilters, withheld: boolean): string {
  const parts = [`withheld = ${String(withheld)}`];
  if (filters.courtCodes?.length) parts.push(`courtKey IN ${keys(filters.courtCodes)}`);
  if (filters.years?.length) parts.push(`decisionYear IN ${list(filters.years)}`);
  if (filters.caseTypes?.length) parts.push(`caseTypeKey IN ${keys(filters.caseTypes)}`);
  if (filters.judges?.length) parts.push(`judgeKeys IN ${keys(filters.judges)}`);
  if (filters.fromDate !== undefined) parts.push(`decisionDay >= ${filters.fromDate.replace(/-/g, '')}`);
  if (filters.toDate !== undefined) parts.push(`decisionDay <= ${filters.toDate.replace(/-/g, '')}`);
  return parts.join(' AND ');
}

function partyFilterOf(filters: PartySearchFilters, withheld: boolean): string {
  const parts = [`withheld = ${String(withheld)}`];
  if (filters.courtCodes?.length) parts.push(`courtKey IN ${keys(filters.courtCodes)}`);
  if (filters.decidedOnOrAfter !== undefined)
    parts.push(`(decisionDay IS NULL OR decisionDay >= ${filters.decidedOnOrAfter.replace(/-/g, '')})`);
  return parts.join(' AND ');
}

/** Filters on the stored keys that a case number or CNR read from the query names; null where it names none. */
interface Lookups {
  /** The number's candidate keys or the CNR. */
  readonly exact: string | null;
  /** Keys ending in the number's "NUMBER YEAR": the query left the type out or misspelt it. */
  readonly numberYear: string | null;
  /** A party named exactly as the query, when the query could be a name. */
  readonly party: string | null;
}

function lookupsOf(query: AnalysedQuery): Lookups {
  const exact = [
    ...(query.caseNumberKeys.length ? [`caseNumberKey IN ${list(query.caseNumberKeys)}`] : []),
    ...(query.cnr ? [`cnr = ${quoted(query.cnr)}`] : []),
  ].join(' OR ');
  const name = normalisePartyName(query.words);
  const nameLike = exact === '' && query.numberAndYear === null && name !== '' && name.split(' ').length <= PARTY_QUERY_MAX_WORDS;
  return {
    exact: exact === '' ? null : exact,
    numberYear: query.numberAndYear === null ? null : `caseNumberTail = ${quoted(query.numberAndYear)}`,
    party: nameLike ? `partyKeys = ${quoted(exactKey(name))}` : null,
  };
}

/** Either lookup, as one filter. */
function anyLookup(lookups: Lookups): string | null {
  const parts = [lookups.exact, lookups.numberYear, lookups.party].filter((f) => f !== null);
  return parts.length === 0 ? null : parts.map((f) => `(${f})`).join(' OR ');
}

interface Page {
  readonly hits: readonly SearchHit[];
  readonly total: number;
}

/** `filter` without the given cases. */
function without(filter: string, hits: readonly SearchHit[]): string {
  return hits.length === 0 ? filter : `${filter} AND NOT caseId IN ${list(hits.map((h) => h.caseId))}`;
}

/**
 * A screened name's words for whole-word searches: the ones a party must have (initials
 * dropped unless nothing else is left), and all of them, initials included, for ranking.
 */
function partyWords(name: string): { required: string; all: string } {
  const words = normalisePartyName(name).split(' ').filter(Boolean);
  const full = words.filter((w) => w.length > 1);
  return { required: (full.length > 0 ? full : words).join(' '), all: words.join(' ') };
}

export const MEILI_SETTINGS: Settings = {
  searchableAttributes: ['parties', 'partyInitials', 'caseNumberKey', 'cnr', 'caseNumber', 'title', 'summary', 'text'],
  filterableAttributes: [
    'caseId',
    'chunk',
    'caseNumberKey',
    'caseNumberTail',
    'cnr',
    'courtKey',
    'caseTypeKey',
    'judgeKeys',
    'decisionDay',
    'decisionYear',
    'withheld',
    'partyKeys',
  ],
  sortableAttributes: ['decisionDay', 'caseId'],
  distinctAttribute: 'caseId',
  // `sort` first, so a date sort orders every hit by date rather than breaking ties of
  // relevance with it; a search that asks for no sort skips the rule, so relevance is unchanged.
  rankingRules: ['sort', 'words', 'typo', 'proximity', 'attribute', 'exactness', 'caseId:asc'],
  synonyms: Object.fromEntries(abbreviationSynonyms().flatMap((group) => group.map((form) => [form, group.filter((f) => f !== form)]))),
  typoTolerance: {
    enabled: true,
    // Four letters, not Meilisearch's five: short words carry Indian party names ("bihr", "ptel").
    minWordSizeForTypos: { oneTypo: 4, twoTypos: 8 },
    disableOnNumbers: true,
    disableOnAttributes: ['caseNumberKey', 'cnr', 'caseNumber'],
  },
  pagination: { maxTotalHits: TOTAL_HITS_CAP },
};

/** Every version of the index's schema, oldest first (see index-schema.ts). */
export const MEILI_MIGRATIONS: readonly IndexMigration[] = [
  { version: 1, description: 'one document per chunk of a case, folded back by caseId', settings: MEILI_SETTINGS, reindex: false },
  {
    version: 2,
    description: 'party names with first names as initials; typos in four-letter words',
    settings: MEILI_SETTINGS,
    reindex: true,
  },
  { version: 3, description: 'each party as a filter key, so the exact party ranks first', settings: MEILI_SETTINGS, reindex: true },
];

function synonymsOf(settings: Settings['synonyms']): PartySynonyms {
  return new Map(Object.entries(settings ?? {}));
}

/** Whether `next` holds a variant `current` lacks. */
function grows(current: PartySynonyms, next: PartySynonyms): boolean {
  return [...next].some(([word, variants]) => {
    const known = current.get(word) ?? [];
    return variants.some((v) => !known.includes(v));
  });
}

export interface MeilisearchOptions {
  readonly url: string;
  readonly apiKey?: string | undefined;
  readonly indexUid?: string;
  readonly migrations?: readonly IndexMigration[];
}

/** Cases written per projector batch: Meilisearch pays per task far more than per document. */
const WRITE_BATCH = 5_000;

/** The stale-chunk filter of a batch: one clause per chunk count, not one per case. */
function staleChunks(documents: readonly SearchDocument[], all: readonly ChunkDocument[][]): string {
  const byCount = new Map<number, string[]>();
  documents.forEach((doc, i) => {
    const count = all[i]?.length ?? 1;
    byCount.set(count, [...(byCount.get(count) ?? []), doc.caseId]);
  });
  return [...byCount].map(([count, ids]) => `(chunk >= ${String(count)} AND caseId IN ${list(ids)})`).join(' OR ');
}

export class MeilisearchSearchIndex implements ReindexableSearchIndex, PartySearchIndex {
  readonly name = 'meilisearch' as const;
  readonly writeBatchSize = WRITE_BATCH;
  readonly checkpointKey: string;
  readonly #tally = new PartyTokenTally();

  private constructor(
    private readonly client: Meilisearch,
    /** Searches go over this; the client keeps writes, settings and tasks. */
    private readonly reads: MeilisearchSearchTransport<ChunkDocument>,
    private readonly index: Index<ChunkDocument>,
    private readonly migrations: readonly IndexMigration[],
    /** The schema version of the live index after opening, and whether it needs a reindex. */
    readonly schema: SchemaState,
    /** The synonyms setting as last read or written. */
    private synonyms: PartySynonyms,
  ) {
    // The default index keeps the key it always had; the uid names any other.
    this.checkpointKey = index.uid === 'cases' ? 'meilisearch' : `meilisearch:${index.uid}`;
  }

  /** Creates the index if missing and migrates its settings (index-schema.ts); resolves when done. */
  static async open(options: MeilisearchOptions): Promise<MeilisearchSearchIndex> {
    const client = meilisearchClient(options.url, options.apiKey);
    const uid = options.indexUid ?? 'cases';
    const migrations = options.migrations ?? MEILI_MIGRATIONS;
    const schema = await migrateIndex(client, uid, migrations);
    const index = client.index<ChunkDocument>(uid);
    const reads = new MeilisearchSearchTransport<ChunkDocument>(options.url, options.apiKey);
    return new MeilisearchSearchIndex(client, reads, index, migrations, schema, synonymsOf(await index.getSynonyms()));
  }

  /**
   * The new chunks and the deletion of stale ones (chunk numbers past the new count) touch
   * different documents, so their two tasks may run in either order, and are waited for together.
   */
  async upsert(documents: readonly SearchDocument[]): Promise<void> {
    if (documents.length === 0) return;
    const all = documents.map(toChunks);
    await succeeded(this.client, [
      this.index.addDocuments(all.flat()),
      this.index.deleteDocuments({ filter: staleChunks(documents, all) }),
    ]);
    await this.#learnSynonyms(documents);
  }

  /** Adds the abbreviation pairs these names teach to the synonyms setting, when they teach any. */
  async #learnSynonyms(documents: readonly SearchDocument[]): Promise<void> {
    if (this.#tally.full) return;
    this.#tally.add(documents.flatMap((d) => [...d.petitioners, ...d.respondents]));
    const next = mergeSynonyms(this.synonyms, deriveAbbreviations(this.#tally));
    if (!grows(this.synonyms, next)) return;
    await succeeded(this.client, [this.index.updateSynonyms(Object.fromEntries([...next].map(([w, v]) => [w, [...v]])))]);
    this.synonyms = next;
  }

  async remove(caseIds: readonly string[]): Promise<void> {
    if (caseIds.length === 0) return;
    await succeeded(this.client, [this.index.deleteDocuments({ filter: `caseId IN ${list(caseIds)}` })]);
  }

  /** A new, empty index beside this one with the latest settings, to be filled and swapped in. */
  async createShadow(): Promise<SearchIndex> {
    const uid = `${this.index.uid}_next`;
    // A shadow left by an interrupted reindex holds an unknown part of the cases.
    await dropIndex(this.client, uid);
    await ensureIndex(this.client, uid);
    const target = latest(this.migrations);
    await applySettings(this.client, uid, target.settings);
    return new MeilisearchSearchIndex(
      this.client,
      this.reads,
      this.client.index<ChunkDocument>(uid),
      this.migrations,
      { version: target.version, needsReindex: false },
      synonymsOf(target.settings.synonyms),
    );
  }

  /** Swaps the shadow's documents in atomically (searches see the old or the new index, never neither), then drops the old. */
  async swapIn(shadow: SearchIndex): Promise<void> {
    if (!(shadow instanceof MeilisearchSearchIndex) || shadow.index.uid !== `${this.index.uid}_next`)
      throw new Error('swapIn takes the shadow this index created');
    await succeeded(this.client, [this.client.swapIndexes([{ indexes: [this.index.uid, shadow.index.uid], rename: false }])]);
    await dropIndex(this.client, shadow.index.uid);
    await recordVersion(this.client, this.index.uid, shadow.schema.version);
  }

  async ping(): Promise<void> {
    await this.client.health();
  }

  async search(request: SearchRequest): Promise<SearchResult> {
    const query = analyseQuery(request.query);
    const lookups = lookupsOf(query);
    return request.sort === 'relevance' ? this.#byRelevance(query.words, lookups, request) : this.#byDate(query.words, lookups, request);
  }

  /**
   * The lookups' cases first, then the word hits without them. Meilisearch will not merge a
   * filter-only query with a word query by relevance (their ranking rules do not compare),
   * so the lookups are read whole and the word search is paged after them.
   */
  async #byRelevance(words: string, lookups: Lookups, request: SearchRequest): Promise<SearchResult> {
    const visible = filterOf(request.filters, false);
    const { looked, withheld } = await this.#lookupsAndWithheld(words, lookups, request.filters);
    const fromLookups = looked.slice(request.offset, request.offset + request.limit);
    if (words === '') return { hits: fromLookups, total: looked.length, withheld };
    const page = await this.#wordPage(
      words,
      without(visible, looked),
      Math.max(0, request.offset - looked.length),
      request.limit - fromLookups.length,
    );
    const hits = [...fromLookups, ...page.hits];
    const total = Math.min(TOTAL_HITS_CAP, looked.length + page.total);
    if (request.offset > 0 || hits.length >= request.limit || !words.includes(' ')) return { hits, total, withheld };
    // A short first page is filled with cases that miss a word but match most of the query
    // closely (a word glued to the next in the source, "CORPORATIONLTD"), as PostgreSQL's
    // trigram arm does; they come after every full match and only on the first page.
    const partial = await this.reads.search(this.index.uid, words, {
      matchingStrategy: 'last',
      filter: without(visible, hits),
      limit: request.limit - hits.length,
      attributesToRetrieve: ['caseId'],
      showRankingScore: true,
      rankingScoreThreshold: PARTIAL_MATCH_SCORE,
    });
    const filled = partial.hits.map((h) => ({ caseId: h.caseId, score: (h._rankingScore ?? 0) / 2 }));
    return { hits: [...hits, ...filled], total: total + filled.length, withheld };
  }

  /**
   * One page of word hits and how many there are. Asked by page number, Meilisearch counts
   * every match (up to maxTotalHits) in the same request; an offset between page boundaries
   * (the lookups took part of the page) needs a count of its own when the estimate is short of the cap.
   */
  async #wordPage(words: string, filter: string, offset: number, limit: number): Promise<Page> {
    const common = { matchingStrategy: 'all' as const, filter, attributesToRetrieve: ['caseId'], showRankingScore: true };
    const hitsOf = (found: SearchResponse<ChunkDocument>): SearchHit[] =>
      found.hits.map((h) => ({ caseId: h.caseId, score: h._rankingScore ?? 0 }));
    if (offset === 0 || (limit > 0 && offset % limit === 0)) {
      const found = await this.reads.search(this.index.uid, words, {
        ...common,
        hitsPerPage: limit,
        page: limit === 0 ? 1 : offset / limit + 1,
      });
      return { hits: hitsOf(found), total: found.totalHits };
    }
    const found = await this.reads.search(this.index.uid, words, { ...common, offset, limit });
    return { hits: hitsOf(found), total: await this.#total(words, [], filter, found.estimatedTotalHits) };
  }

  /**
   * The word search and the lookups as one federated search: every query is sorted the
   * same way and `sort` is the first ranking rule, so Meilisearch merges them by date, and
   * `distinct` folds a case found by both (or by two of its chunks) into one hit.
   */
  async #byDate(words: string, lookups: Lookups, request: SearchRequest): Promise<SearchResult> {
    const visible = filterOf(request.filters, false);
    const sort = [request.sort === 'recent' ? 'decisionDay:desc' : 'decisionDay:asc', 'caseId:asc'];
    const lookup = anyLookup(lookups);
    const queries: FederatedMultiSearchParams['queries'] = [
      ...(words === '' ? [] : [{ indexUid: this.index.uid, q: words, matchingStrategy: 'all' as const, filter: visible }]),
      ...(lookup === null ? [] : [{ indexUid: this.index.uid, q: '', filter: `(${lookup}) AND ${visible}` }]),
    ].map((q) => ({ ...q, sort, attributesToRetrieve: ['caseId'] }));
    if (queries.length === 0) return { hits: [], total: 0, withheld: false };
    const [found, { looked, withheld }] = await Promise.all([
      this.reads.federated({ federation: { offset: request.offset, limit: request.limit, distinct: 'caseId' }, queries }),
      this.#lookupsAndWithheld(words, lookups, request.filters),
    ]);
    return {
      hits: found.hits.map((h) => ({ caseId: h.caseId, score: h._federation?.weightedRankingScore ?? 0 })),
      total: await this.#total(words, looked, visible, found.estimatedTotalHits ?? 0),
      withheld,
    };
  }

  /**
   * In one multi-search (each query led by a filter that leaves few documents): the cases
   * the lookups find, exact matches first, then number-and-year ones (PostgreSQL scores these
   * 10 and 2, above any word match), each kind by caseId, LOOKUP_LIMIT of each since a number
   * names few cases, then PARTY_LOOKUP_LIMIT with exactly the party typed; and whether a
   * withheld case matches the words or a lookup.
   */
  async #lookupsAndWithheld(words: string, lookups: Lookups, filters: SearchFilters): Promise<{ looked: SearchHit[]; withheld: boolean }> {
    const visible = filterOf(filters, false);
    const hidden = filterOf(filters, true);
    const numberYearOnly =
      lookups.numberYear !== null && lookups.exact !== null ? `(${lookups.numberYear}) AND NOT (${lookups.exact})` : lookups.numberYear;
    const kinds = [
      { filter: lookups.exact, score: EXACT_SCORE, limit: LOOKUP_LIMIT },
      { filter: numberYearOnly, score: NUMBER_YEAR_SCORE, limit: LOOKUP_LIMIT },
      { filter: lookups.party, score: PARTY_SCORE, limit: PARTY_LOOKUP_LIMIT },
    ].flatMap(({ filter, score, limit }) => (filter === null ? [] : [{ filter, score, limit }]));
    const lookup = anyLookup(lookups);
    const queries = [
      ...kinds.map(({ filter, limit }) => ({ q: '', filter: `(${filter}) AND ${visible}`, limit, attributesToRetrieve: ['caseId'] })),
      ...(words === '' ? [] : [{ q: words, matchingStrategy: 'all' as const, filter: hidden, limit: 0 }]),
      ...(lookup === null ? [] : [{ q: '', filter: `(${lookup}) AND ${hidden}`, limit: 0 }]),
    ].map((q) => ({ ...q, indexUid: this.index.uid }));
    if (queries.length === 0) return { looked: [], withheld: false };
    const { results } = await this.reads.multiSearch({ queries });
    return {
      looked: kinds.flatMap(({ score }, i) => (results[i]?.hits ?? []).map((h) => ({ caseId: h.caseId, score }))),
      withheld: results.slice(kinds.length).some((r) => (r.estimatedTotalHits ?? 0) > 0),
    };
  }

  /**
   * How many cases match: the looked-up ones plus an exhaustive count of the other word
   * matches, or TOTAL_HITS_CAP once the estimate (never below the count) reaches it, where
   * PostgreSQL stops counting too.
   */
  async #total(words: string, looked: readonly SearchHit[], visible: string, estimate: number): Promise<number> {
    if (estimate >= TOTAL_HITS_CAP) return TOTAL_HITS_CAP;
    if (words === '') return looked.length;
    const counted = await this.reads.search(this.index.uid, words, {
      matchingStrategy: 'all',
      filter: without(visible, looked),
      hitsPerPage: 0,
      page: 1,
    });
    return Math.min(TOTAL_HITS_CAP, looked.length + counted.totalHits);
  }

  async searchParties(request: PartySearchRequest): Promise<PartySearchResult> {
    const words = partyWords(request.name);
    if (words.required === '') return { hits: [], complete: true, withheld: false };
    const options = { attributesToSearchOn: ['parties', 'partyInitials'], matchingStrategy: 'all' as const };
    // Every match of all the words also matches the required ones: the union is the required words' matches.
    const ranked = words.all === words.required ? [] : [{ q: words.all, federationOptions: { weight: INITIALS_WEIGHT } }];
    const [found, withheld] = await Promise.all([
      this.reads.federated({
        federation: { limit: request.limit + 1 },
        queries: [...ranked, { q: words.required }].map((q) => ({
          ...q,
          ...options,
          indexUid: this.index.uid,
          filter: partyFilterOf(request.filters, false),
          attributesToRetrieve: ['caseId'],
        })),
      }),
      this.reads.search(this.index.uid, words.required, {
        ...options,
        filter: partyFilterOf(request.filters, true),
        limit: 0,
      }),
    ]);
    return {
      hits: found.hits.slice(0, request.limit).map((h) => ({ caseId: h.caseId, score: h._federation?.weightedRankingScore ?? 0 })),
      complete: found.hits.length <= request.limit,
      withheld: withheld.estimatedTotalHits > 0,
    };
  }
}
