/**
 * The SearchIndex port over Meilisearch (used when MEILI_URL is set), through the official
 * client. Meilisearch indexes at most 65,535 positions per attribute, so a long judgment
 * is split into chunks of CHUNK_WORDS words; each chunk is its own Meilisearch document
 * (`<caseId>__<n>`) carrying the case's filter and sort fields, chunk 0 also the parties,
 * title and summary, and `distinctAttribute: caseId` folds them back into one hit per case.
 * Every write waits for its task (waitTask) and fails if the task failed, so `upsert` and
 * `remove` are durable when they resolve. Synonyms come from the domain's table of legal
 * abbreviations; typos are tolerated in words but never in numbers, case numbers or CNRs.
 *
 * A case number or CNR read from the query is looked up exactly (a filter on the stored
 * keys) and those cases rank first; the words then go through a normal search. `total`
 * is the exact matches plus Meilisearch's estimatedTotalHits for the words (an estimate,
 * capped by `pagination.maxTotalHits` like the Postgres adapter's count cap).
 *
 * Party retrieval for the litigation check (`searchParties`) searches the `parties`
 * attribute alone with matchingStrategy "all": every word of the normalised name must be
 * there, typo-tolerant. Single letters (initials) are left out of the words, since
 * Meilisearch matches whole words and "R" would never meet "Rajesh"; the features stage
 * judges initials against the record. One hit more than the limit says whether the page
 * holds every match (`complete`).
 */
import { Meilisearch, type Index, type Settings, type Task } from 'meilisearch';
import { normalisePartyName } from '../../domain/search/party-name.ts';
import { abbreviationSynonyms } from '../../domain/search/legal-abbreviations.ts';
import { analyseQuery } from '../../domain/search/query.ts';
import type {
  PartySearchFilters,
  PartySearchIndex,
  PartySearchRequest,
  PartySearchResult,
  SearchDocument,
  SearchFilters,
  SearchIndex,
  SearchRequest,
  SearchResult,
} from '../../ports/search-index.ts';

/** Well under 65,535 positions: separators and sentence breaks also take positions. */
const CHUNK_WORDS = 20_000;
const TOTAL_HITS_CAP = 10_000;
/** Exact case-number matches taken ahead of the word search (a number names few cases). */
const EXACT_LOOKUP_LIMIT = 100;

interface ChunkDocument {
  id: string;
  caseId: string;
  chunk: number;
  caseNumberKey: string;
  cnr: string | null;
  courtCode: string;
  caseType: string | null;
  judges: string[];
  decisionDay: number | null;
  decisionYear: number | null;
  withheld: boolean;
  caseNumber?: string;
  parties?: string;
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

export function toChunks(doc: SearchDocument): ChunkDocument[] {
  const shared = {
    caseId: doc.caseId,
    caseNumberKey: doc.caseNumberNormalised,
    cnr: doc.cnr,
    courtCode: doc.courtCode,
    caseType: doc.caseType,
    judges: [...doc.judges],
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
          parties: [...doc.petitioners, ...doc.respondents].map(normalisePartyName).join(' ; '),
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

function filterOf(filters: SearchFilters, withheld: boolean): string {
  const parts = [`withheld = ${String(withheld)}`];
  if (filters.courtCodes?.length) parts.push(`courtCode IN ${list(filters.courtCodes)}`);
  if (filters.years?.length) parts.push(`decisionYear IN ${list(filters.years)}`);
  if (filters.caseTypes?.length) parts.push(`caseType IN ${list(filters.caseTypes)}`);
  if (filters.judges?.length) parts.push(`judges IN ${list(filters.judges)}`);
  if (filters.fromDate !== undefined) parts.push(`decisionDay >= ${filters.fromDate.replace(/-/g, '')}`);
  if (filters.toDate !== undefined) parts.push(`decisionDay <= ${filters.toDate.replace(/-/g, '')}`);
  return parts.join(' AND ');
}

function partyFilterOf(filters: PartySearchFilters, withheld: boolean): string {
  const parts = [`withheld = ${String(withheld)}`];
  if (filters.courtCodes?.length) parts.push(`courtCode IN ${list(filters.courtCodes)}`);
  if (filters.decidedOnOrAfter !== undefined)
    parts.push(`(decisionDay IS NULL OR decisionDay >= ${filters.decidedOnOrAfter.replace(/-/g, '')})`);
  return parts.join(' AND ');
}

/** The name's words for a whole-word search: initials dropped unless nothing else is left. */
function partyWords(name: string): string {
  const words = normalisePartyName(name).split(' ').filter(Boolean);
  const full = words.filter((w) => w.length > 1);
  return (full.length > 0 ? full : words).join(' ');
}

export const MEILI_SETTINGS: Settings = {
  searchableAttributes: ['parties', 'caseNumberKey', 'cnr', 'caseNumber', 'title', 'summary', 'text'],
  filterableAttributes: [
    'caseId',
    'chunk',
    'caseNumberKey',
    'cnr',
    'courtCode',
    'caseType',
    'judges',
    'decisionDay',
    'decisionYear',
    'withheld',
  ],
  sortableAttributes: ['decisionDay', 'caseId'],
  distinctAttribute: 'caseId',
  rankingRules: ['words', 'typo', 'proximity', 'attribute', 'sort', 'exactness', 'caseId:asc'],
  synonyms: Object.fromEntries(abbreviationSynonyms().flatMap((group) => group.map((form) => [form, group.filter((f) => f !== form)]))),
  typoTolerance: { enabled: true, disableOnNumbers: true, disableOnAttributes: ['caseNumberKey', 'cnr', 'caseNumber'] },
  pagination: { maxTotalHits: TOTAL_HITS_CAP },
};

async function succeeded(task: Promise<Task>): Promise<void> {
  const done = await task;
  if (done.status !== 'succeeded')
    throw new Error(`Meilisearch task ${done.uid} ${done.status}: ${done.error?.message ?? 'no error given'}`);
}

export class MeilisearchSearchIndex implements SearchIndex, PartySearchIndex {
  readonly name = 'meilisearch' as const;

  private constructor(
    private readonly client: Meilisearch,
    private readonly index: Index<ChunkDocument>,
  ) {}

  /** Creates the index if missing and applies the settings; resolves when both are done. */
  static async open(options: { url: string; apiKey?: string | undefined; indexUid?: string }): Promise<MeilisearchSearchIndex> {
    const client = new Meilisearch({ host: options.url, ...(options.apiKey ? { apiKey: options.apiKey } : {}) });
    const uid = options.indexUid ?? 'cases';
    const created = await client.createIndex(uid, { primaryKey: 'id' }).waitTask();
    if (created.status !== 'succeeded' && created.error?.code !== 'index_already_exists') await succeeded(Promise.resolve(created));
    const index = client.index<ChunkDocument>(uid);
    await succeeded(index.updateSettings(MEILI_SETTINGS).waitTask());
    return new MeilisearchSearchIndex(client, index);
  }

  async upsert(documents: readonly SearchDocument[]): Promise<void> {
    if (documents.length === 0) return;
    const all = documents.map(toChunks);
    await succeeded(this.index.addDocuments(all.flat()).waitTask());
    // Chunks beyond the new count are left from a longer earlier text.
    const stale = all.map((c, i) => `(caseId = ${quoted(documents[i]?.caseId ?? '')} AND chunk >= ${c.length})`).join(' OR ');
    await succeeded(this.index.deleteDocuments({ filter: stale }).waitTask());
  }

  async remove(caseIds: readonly string[]): Promise<void> {
    if (caseIds.length === 0) return;
    await succeeded(this.index.deleteDocuments({ filter: `caseId IN ${list(caseIds)}` }).waitTask());
  }

  async ping(): Promise<void> {
    await this.client.health();
  }

  async search(request: SearchRequest): Promise<SearchResult> {
    const query = analyseQuery(request.query);
    const visible = filterOf(request.filters, false);
    const keyFilter = [
      ...(query.caseNumberKeys.length ? [`caseNumberKey IN ${list(query.caseNumberKeys)}`] : []),
      ...(query.cnr ? [`cnr = ${quoted(query.cnr)}`] : []),
    ].join(' OR ');
    const sort =
      request.sort === 'relevance' ? undefined : [request.sort === 'recent' ? 'decisionDay:desc' : 'decisionDay:asc', 'caseId:asc'];

    const exact =
      keyFilter === ''
        ? []
        : (
            await this.index.search('', {
              filter: `(${keyFilter}) AND ${visible}`,
              limit: EXACT_LOOKUP_LIMIT,
              attributesToRetrieve: ['caseId'],
              ...(sort ? { sort } : {}),
            })
          ).hits.map((h) => h.caseId);
    const exactIds = new Set(exact);
    const wordsOffset = Math.max(0, request.offset - exact.length);
    const words = await this.index.search(query.words, {
      filter: visible,
      offset: wordsOffset,
      limit: request.limit + exact.length,
      attributesToRetrieve: ['caseId'],
      showRankingScore: true,
      ...(sort ? { sort } : {}),
    });
    const wordHits = words.hits.filter((h) => !exactIds.has(h.caseId)).map((h) => ({ caseId: h.caseId, score: h._rankingScore ?? 0 }));
    const hits = [...exact.map((caseId) => ({ caseId, score: 2 })), ...wordHits].slice(
      request.offset - wordsOffset,
      request.offset - wordsOffset + request.limit,
    );

    const withheldFilter = filterOf(request.filters, true);
    const [withheldWords, withheldExact] = await Promise.all([
      this.index.search(query.words, { filter: withheldFilter, limit: 0 }),
      keyFilter === '' ? undefined : this.index.search('', { filter: `(${keyFilter}) AND ${withheldFilter}`, limit: 0 }),
    ]);
    return {
      hits,
      total: Math.min(TOTAL_HITS_CAP, exact.length + words.estimatedTotalHits),
      withheld: withheldWords.estimatedTotalHits > 0 || (withheldExact?.estimatedTotalHits ?? 0) > 0,
    };
  }

  async searchParties(request: PartySearchRequest): Promise<PartySearchResult> {
    const words = partyWords(request.name);
    if (words === '') return { hits: [], complete: true, withheld: false };
    const options = { attributesToSearchOn: ['parties'], matchingStrategy: 'all' as const };
    const [found, withheld] = await Promise.all([
      this.index.search(words, {
        ...options,
        filter: partyFilterOf(request.filters, false),
        limit: request.limit + 1,
        attributesToRetrieve: ['caseId'],
        showRankingScore: true,
      }),
      this.index.search(words, { ...options, filter: partyFilterOf(request.filters, true), limit: 0 }),
    ]);
    return {
      hits: found.hits.slice(0, request.limit).map((h) => ({ caseId: h.caseId, score: h._rankingScore ?? 0 })),
      complete: found.hits.length <= request.limit,
      withheld: withheld.estimatedTotalHits > 0,
    };
  }
}
