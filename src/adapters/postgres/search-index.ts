/**
 * The SearchIndex port over PostgreSQL full-text search: the embedded default, the same
 * SQL on PGlite and on PostgreSQL 15. A case matches when any of these holds:
 * - its weighted tsvector matches `websearch_to_tsquery` of the query's words;
 * - a case number or CNR read from the query equals its stored key (or, for a number
 *   whose type the query leaves out or misspells, "NUMBER YEAR" ends its key);
 * - only when those find fewer than FUZZY_BELOW cases: its normalised party names are
 *   trigram-similar to the query words (typos). A query whose words already find a page
 *   does not pay for a trigram recheck and a similarity score of every "STATE OF ..." name.
 * Relevance adds: 10 for an exact case number or CNR, 2 for a number-and-year match, 1.5
 * for a party named exactly as the query (normalised; `parties`), 1 for the words as a phrase (`phraseto_tsquery`: "union of india" before "India Cements v.
 * Workers Union"), `ts_rank_cd` (normalised to 0..1) and, with the trigram arm, the
 * party-name word similarity (0..1). Up to RANK_ALL matches every one is scored; past it
 * only the RANKED newest and up to RANKED with the exact party are (see rankCandidates): on PGlite, which runs in WebAssembly on
 * the event-loop thread, scoring the 3,000 matches of "union of india" in the 33k corpus
 * took longer than the rest of the request.
 *
 * The 'english' configuration is used for every weight: judgment text benefits from
 * stemming ("appeals", "appealed"), and because documents and queries go through the same
 * configuration, names and case-number keys still meet (they are not dictionary words, so
 * stemming leaves them alone or changes both sides alike). Misspelt names are the trigram
 * path's job, not the stemmer's.
 *
 * Planner statistics are refreshed after every ANALYZE_EVERY upserted documents: PGlite
 * has no autovacuum, and a freshly bulk-loaded table planned without statistics falls
 * back to scanning every row (seconds instead of milliseconds on the real corpus).
 *
 * `total` is exact up to TOTAL_COUNT_CAP (or one past the requested page, when deeper) and
 * saturates there, as Meilisearch's totalHits does: counting every match of a common word
 * costs more than the page itself (each counted row is a heap fetch).
 *
 * Words of a plain query (no web-search syntax) are ORed with the abbreviations and
 * expansions the corpus itself writes for them (party-synonyms.ts: "assocn" | "association"),
 * and a single letter is an initial, a prefix of a party-name word. The pairs are derived
 * from a bounded sample of the stored cases' party names, once per SYNONYMS_TTL_MS, and
 * from the names this instance indexes (the indexing process learns as it writes).
 *
 * Party retrieval for the litigation check (`searchParties`) matches one screened name
 * against the party names only: every word of the normalised name (or a variant) in the
 * A-weighted lexemes (a single letter as a prefix, so "R K Sharma" meets "Rajesh Kumar
 * Sharma"), or, only when those words find fewer than a page, the name trigram-similar to
 * the party names at PARTY_SIMILARITY (spellings such as "Rohatgi"/"Rohtagi"): the trigram
 * arm is what grows with the corpus, so a common name that fills the page by its words
 * never pays it. Asking for one row more than the limit says whether the page holds every
 * match (`complete`).
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import { normalisePartyName } from '../../domain/search/party-name.ts';
import { deriveAbbreviations, mergeSynonyms, PartyTokenTally, type PartySynonyms } from '../../domain/search/party-synonyms.ts';
import { analyseQuery, type AnalysedQuery } from '../../domain/search/query.ts';
import type {
  PartySearchIndex,
  PartySearchRequest,
  PartySearchResult,
  SearchDocument,
  SearchIndex,
  SearchRequest,
  SearchResult,
} from '../../ports/search-index.ts';
import { expandedTsQuery, keywordTsQuery } from './party-tsquery.ts';

export const TOTAL_COUNT_CAP = 1_000;
/** Text beyond this is left out of the tsvector (which must stay under 1 MB). */
const MAX_TEXT_CHARS = 1_000_000;
/** 12 parameters a row: far below PostgreSQL's 65,535 bind parameters. */
const UPSERT_BATCH = 200;
const ANALYZE_EVERY = 5_000;
/** pg_trgm's `<%` default: how much of a query must match a name's words. */
const NAME_SIMILARITY = 0.6;
/** Looser than keyword search's: a litigation check would rather score a doubtful candidate than miss it. */
const PARTY_SIMILARITY = 0.5;
/** Below this many matches of the words (or case numbers), the trigram arm looks for misspelt names too. */
const FUZZY_BELOW = 20;
/** Up to this many matches every one is scored; past it, see rankCandidates. */
const RANK_ALL = 300;
/** Candidates scored for a query with more than RANK_ALL matches. */
const RANKED = 200;
/** A case with a party of exactly the name typed ("Ram Kumar", not "Ram Kumar Sharma"): above the phrase bonus. */
const EXACT_PARTY_BONUS = 1.5;
/** What an all-words match adds to the similarity when ranking party hits. */
const ALL_WORDS_BONUS = 0.25;

/** Party names read to learn the corpus's abbreviations: enough for every common spelling, bounded at any size. */
const SYNONYM_SAMPLE_CASES = 100_000;
/** How long learnt abbreviations are used before the sample is read again (new spellings arrive with new cases). */
const SYNONYMS_TTL_MS = 10 * 60_000;

/** Each party's normalised name, in the order of the cause title. */
function partiesOf(doc: SearchDocument): string[] {
  return [...doc.petitioners, ...doc.respondents].map((n) => normalisePartyName(n)).filter((n) => n !== '');
}

function weighted(doc: SearchDocument) {
  const names = partiesOf(doc).join(' ');
  const a = [names, doc.caseNumberNormalised, doc.cnr ?? ''].join(' ');
  const title = doc.title === null ? '' : normalisePartyName(doc.title);
  const b = [title, doc.summary ?? ''].join(' ');
  const c = (doc.text ?? '').slice(0, MAX_TEXT_CHARS);
  return {
    names,
    document: sql<string>`setweight(to_tsvector('english', ${a}), 'A') || setweight(to_tsvector('english', ${b}), 'B') || setweight(to_tsvector('english', ${c}), 'C')`,
  };
}

/**
 * Each word once: trigram similarity compares the sets of the words' trigrams, so a
 * repeated word changes no match and no score, only the work (a 1000-character query of
 * one word repeated made every trigram search of it several times slower).
 */
function distinctWords(text: string): string {
  return [...new Set(text.split(' '))].join(' ');
}

/** The words without web-search syntax, each once, for trigram similarity. */
function fuzzyText(query: AnalysedQuery): string {
  return distinctWords(
    query.words
      .replace(/["-]|\bor\b/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

type Hit = { caseId: string; score: number };

/** Matches of `where` among the documents served, counted up to `bound`. */
async function countMatches(trx: Db, where: Expression<SqlBool>, bound: number): Promise<number> {
  const { rows } = await sql<{ total: number }>`
    select count(*)::int as total from (select 1 from search_documents d where not d.withheld and ${where} limit ${bound}) m`.execute(trx);
  return rows[0]?.total ?? 0;
}

/**
 * Relevance order for a query matching more than RANK_ALL documents, where scoring every
 * match costs more than the page (each score reads the document's tsvector): the RANKED
 * newest matches are scored and ordered by relevance (exact-phrase matches first); the
 * other matches follow, newest first. Every page of one query comes from this one order.
 * Newest first is the date index's order, so the candidates are found without reading
 * every match.
 */
async function rankCandidates(
  trx: Db,
  q: { where: Expression<SqlBool>; score: Expression<number>; exactParty: Expression<SqlBool> },
  request: SearchRequest,
): Promise<Hit[]> {
  // The cases with exactly the party typed join the newest, whatever their age: the name is what was asked for.
  const { rows: ranked } = await sql<Hit>`
    with candidates as (
      (select d.case_id from search_documents d where not d.withheld and ${q.where}
       order by d.decision_date desc, d.case_id desc limit ${RANKED})
      union
      (select d.case_id from search_documents d where not d.withheld and ${q.exactParty} and ${q.where}
       order by d.decision_date desc, d.case_id desc limit ${RANKED}))
    select d.case_id, (${q.score})::float8 as score from search_documents d join candidates c on c.case_id = d.case_id
    order by score desc, d.case_id asc`.execute(trx);
  const end = request.offset + request.limit;
  const page = ranked.slice(request.offset, end);
  if (end <= ranked.length) return page;
  // The scored ones are not all the newest (exact parties join them), so the rest leaves them out by id.
  const { rows: rest } = await sql<Hit>`
    select d.case_id, 0::float8 as score from search_documents d
    where not d.withheld and ${q.where} and d.case_id <> all(${ranked.map((h) => h.caseId)}::text[])
    order by d.decision_date desc, d.case_id desc
    limit ${end - Math.max(request.offset, ranked.length)} offset ${Math.max(0, request.offset - ranked.length)}`.execute(trx);
  return [...page, ...rest];
}

/** Answers kept at most (keepAnswers): a page of ids each, a few kilobytes. */
const KEPT_ANSWERS = 2_000;

export class PostgresSearchIndex implements SearchIndex, PartySearchIndex {
  readonly name = 'postgres' as const;
  readonly checkpointKey = 'postgres';
  readonly writeBatchSize = UPSERT_BATCH;
  #upsertedSinceAnalyze = 0;
  #synonyms: { readonly at: number; readonly pairs: Promise<PartySynonyms> } | undefined;
  readonly #indexed = new PartyTokenTally();
  /** What the names indexed here teach, derived again on the first search after a write. */
  #fromIndexed: PartySynonyms | undefined = new Map();

  /**
   * Answers kept by request, when this object is the index's only writer (`keepAnswers`:
   * PGlite, whose data directory one process holds). A write, or new synonyms, empties
   * them; an answer read while one was under way is not kept. On PGlite the search runs
   * in WebAssembly on the event-loop thread, so a common phrase asked again (the first
   * page of "union of india") costs a lookup instead of 10 to 50 ms of that thread.
   */
  readonly #answers: Map<string, SearchResult> | undefined;
  #generation = 0;

  constructor(
    private readonly db: Db,
    options: { readonly keepAnswers?: boolean } = {},
  ) {
    this.#answers = options.keepAnswers ? new Map() : undefined;
  }

  async search(request: SearchRequest): Promise<SearchResult> {
    if (this.#answers === undefined) return this.#search(request);
    const key = JSON.stringify([request.query, request.filters, request.sort, request.offset, request.limit]);
    const kept = this.#answers.get(key);
    if (kept !== undefined) {
      // Re-inserted: a Map iterates in insertion order, so the first entry is the least recently used.
      this.#answers.delete(key);
      this.#answers.set(key, kept);
      return kept;
    }
    const generation = this.#generation;
    const answer = await this.#search(request);
    if (generation === this.#generation) {
      this.#answers.set(key, answer);
      if (this.#answers.size > KEPT_ANSWERS) this.#answers.delete(this.#answers.keys().next().value!);
    }
    return answer;
  }

  /** After every write: the answers kept go, and none read before the write ended is kept. */
  #changed(): void {
    this.#generation += 1;
    this.#answers?.clear();
  }

  /** The corpus's abbreviation pairs, read from a sample of the stored party names and kept for SYNONYMS_TTL_MS. */
  async synonyms(): Promise<PartySynonyms> {
    const now = performance.now();
    if (this.#synonyms === undefined || now - this.#synonyms.at > SYNONYMS_TTL_MS) {
      // Answers kept under the old pairs go (the first read has none to drop).
      if (this.#synonyms !== undefined) this.#changed();
      const pairs = this.#learnSynonyms();
      // A failed read is retried by the next search rather than kept.
      pairs.catch(() => (this.#synonyms = undefined));
      this.#synonyms = { at: now, pairs };
    }
    this.#fromIndexed ??= deriveAbbreviations(this.#indexed);
    return mergeSynonyms(await this.#synonyms.pairs, this.#fromIndexed);
  }

  async #learnSynonyms(): Promise<PartySynonyms> {
    const rows = await sql<{ name: string | null }>`
      select p->>'name' as name
      from (select petitioners, respondents from cases limit ${SYNONYM_SAMPLE_CASES}) c,
           jsonb_array_elements(c.petitioners || c.respondents) p`.execute(this.db);
    const tally = new PartyTokenTally();
    tally.add(rows.rows.flatMap((r) => (r.name === null ? [] : [r.name])));
    return deriveAbbreviations(tally);
  }

  async upsert(documents: readonly SearchDocument[]): Promise<void> {
    try {
      await this.#upsert(documents);
    } finally {
      this.#changed();
    }
  }

  async #upsert(documents: readonly SearchDocument[]): Promise<void> {
    if (!this.#indexed.full) {
      this.#indexed.add(documents.flatMap((d) => [...d.petitioners, ...d.respondents]));
      this.#fromIndexed = undefined;
    }
    for (let i = 0; i < documents.length; i += UPSERT_BATCH) {
      const rows = documents.slice(i, i + UPSERT_BATCH).map((doc) => {
        const { names, document } = weighted(doc);
        return {
          caseId: doc.caseId,
          caseNumber: doc.caseNumber,
          caseNumberKey: doc.caseNumberNormalised,
          cnr: doc.cnr,
          courtCode: doc.courtCode,
          caseType: doc.caseType,
          judges: sql<string[]>`${[...doc.judges]}::text[]`,
          decisionDate: doc.decisionDate,
          decisionYear: doc.decisionYear,
          partyNames: names,
          parties: sql<string[]>`${[...new Set(partiesOf(doc))]}::text[]`,
          document,
          withheld: doc.withheld,
        };
      });
      await this.db
        .insertInto('searchDocuments')
        .values(rows)
        .onConflict((oc) =>
          oc.column('caseId').doUpdateSet((eb) => ({
            caseNumber: eb.ref('excluded.caseNumber'),
            caseNumberKey: eb.ref('excluded.caseNumberKey'),
            cnr: eb.ref('excluded.cnr'),
            courtCode: eb.ref('excluded.courtCode'),
            caseType: eb.ref('excluded.caseType'),
            judges: eb.ref('excluded.judges'),
            decisionDate: eb.ref('excluded.decisionDate'),
            decisionYear: eb.ref('excluded.decisionYear'),
            partyNames: eb.ref('excluded.partyNames'),
            parties: eb.ref('excluded.parties'),
            document: eb.ref('excluded.document'),
            withheld: eb.ref('excluded.withheld'),
          })),
        )
        .execute();
    }
    this.#upsertedSinceAnalyze += documents.length;
    if (this.#upsertedSinceAnalyze >= ANALYZE_EVERY) {
      this.#upsertedSinceAnalyze = 0;
      await sql`analyze search_documents`.execute(this.db);
    }
  }

  async remove(caseIds: readonly string[]): Promise<void> {
    if (caseIds.length === 0) return;
    try {
      await this.db
        .deleteFrom('searchDocuments')
        .where('caseId', 'in', [...caseIds])
        .execute();
    } finally {
      this.#changed();
    }
  }

  async ping(): Promise<void> {
    await sql`select 1 from search_documents limit 1`.execute(this.db);
  }

  async #search(request: SearchRequest): Promise<SearchResult> {
    const query = analyseQuery(request.query);
    const fuzzy = fuzzyText(query);
    const expanded = keywordTsQuery(query.words, await this.synonyms());
    const tsq = expanded === null ? sql`websearch_to_tsquery('english', ${query.words})` : sql`to_tsquery('english', ${expanded})`;
    const exactNumber = this.#exactNumber(query);
    const numberYear =
      query.numberAndYear === null ? sql<boolean>`false` : sql<boolean>`d.case_number_key like ${`% ${query.numberAndYear}`}`;
    const filters = this.#filters(request);
    const exactArms: Expression<SqlBool>[] = [exactNumber, numberYear];
    if (query.words !== '') exactArms.push(sql<boolean>`d.document @@ ${tsq}`);
    const exactMatch = sql<boolean>`(${sql.join(exactArms, sql` or `)})`;
    // The phrase as written (stop words keep their place): what a reader of "union of india" means first.
    const phrase = query.words === '' ? null : sql`phraseto_tsquery('english', ${fuzzy})`;
    const party = normalisePartyName(fuzzy);
    const exactParty = party === '' ? sql<boolean>`false` : sql<boolean>`d.parties @> array[${party}]::text[]`;

    return this.db.transaction().execute(async (trx) => {
      await sql`select set_config('pg_trgm.word_similarity_threshold', ${String(NAME_SIMILARITY)}, true)`.execute(trx);
      // Every match arm has an index; a row-by-row trigram scan is never the cheaper plan,
      // though the planner picks it on small heaps whose tsvectors live in TOAST.
      await sql`select set_config('enable_seqscan', 'off', true)`.execute(trx);
      // Exact up to the cap, and always one past the page asked for, so a full page says there is more.
      const bound = Math.max(TOTAL_COUNT_CAP, request.offset + request.limit + 1);
      const exactTotal = await countMatches(trx, sql<boolean>`${exactMatch} and ${filters}`, bound);
      const fuzzyArm = fuzzy.length >= 3 && exactTotal < FUZZY_BELOW;
      const match = fuzzyArm ? sql<boolean>`(${exactMatch} or ${fuzzy} <% d.party_names)` : exactMatch;
      const where = sql<boolean>`${match} and ${filters}`;
      const total = fuzzyArm ? await countMatches(trx, where, bound) : exactTotal;
      const score = sql<number>`(case when ${exactNumber} then 10 else 0 end)
        + (case when ${numberYear} then 2 else 0 end)
        + (case when ${exactParty} then ${sql.lit(EXACT_PARTY_BONUS)} else 0 end)
        + ${phrase === null ? sql`0` : sql`(case when d.document @@ ${phrase} then 1 else 0 end)`}
        + ${query.words === '' ? sql`0` : sql`ts_rank_cd(d.document, ${tsq}, 32)`}
        + ${fuzzyArm ? sql`word_similarity(${fuzzy}, d.party_names)` : sql`0`}`;
      const hits =
        request.sort === 'relevance' && total > RANK_ALL
          ? await rankCandidates(trx, { where, score, exactParty }, request)
          : await sql<{ caseId: string; score: number }>`
              select d.case_id, (${score})::float8 as score from search_documents d
              where not d.withheld and ${where}
              order by ${request.sort === 'relevance' ? sql`score desc, d.case_id asc` : request.sort === 'recent' ? sql`d.decision_date desc nulls last, d.case_id asc` : sql`d.decision_date asc nulls last, d.case_id asc`}
              limit ${request.limit} offset ${request.offset}`
              .execute(trx)
              .then((r) => r.rows);
      const withheld = await sql<{ withheld: boolean }>`
        select exists (select 1 from search_documents d where d.withheld and ${where}) as withheld`.execute(trx);
      return {
        hits: hits.map((h) => ({ caseId: h.caseId, score: h.score })),
        total,
        withheld: withheld.rows[0]?.withheld ?? false,
      };
    });
  }

  async searchParties(request: PartySearchRequest): Promise<PartySearchResult> {
    // Every word is required and similarity is over trigram sets: a word twice is the word once.
    const name = distinctWords(normalisePartyName(request.name));
    const tsText = expandedTsQuery(name.toLowerCase().split(' '), await this.synonyms(), ':A');
    if (name === '' || tsText === '') return { hits: [], complete: true, withheld: false };
    const tsq = sql`to_tsquery('english', ${tsText})`;
    const words = sql<boolean>`d.document @@ ${tsq}`;
    const f = request.filters;
    const filters: Expression<SqlBool>[] = [sql<boolean>`true`];
    if (f.courtCodes?.length) filters.push(sql<boolean>`d.court_code in (${sql.join([...f.courtCodes])})`);
    if (f.decidedOnOrAfter !== undefined)
      filters.push(sql<boolean>`(d.decision_date is null or d.decision_date >= ${f.decidedOnOrAfter}::date)`);
    const filter = sql.join(filters, sql` and `);
    const score = sql<number>`word_similarity(${name}, d.party_names) + (case when ${words} then ${sql.lit(ALL_WORDS_BONUS)} else 0 end)`;

    return this.db.transaction().execute(async (trx) => {
      await sql`select set_config('pg_trgm.word_similarity_threshold', ${String(PARTY_SIMILARITY)}, true)`.execute(trx);
      await sql`select set_config('enable_seqscan', 'off', true)`.execute(trx);
      const page = (predicate: Expression<SqlBool>) =>
        sql<{ caseId: string; score: number }>`
          select d.case_id, (${score})::float8 as score from search_documents d
          where not d.withheld and ${predicate} and ${filter}
          order by score desc, d.case_id asc limit ${request.limit + 1}`.execute(trx);
      const byWords = await page(words);
      // The trigram arm only when the words leave the page short: spellings are looked for where names are few.
      const spelling = sql<boolean>`(${words} or ${name} <% d.party_names)`;
      const short = byWords.rows.length <= request.limit;
      const rows = short ? await page(spelling) : byWords;
      const withheld = await sql<{ withheld: boolean }>`
        select exists (select 1 from search_documents d where d.withheld and ${short ? spelling : words} and ${filter}) as withheld`.execute(
        trx,
      );
      return {
        hits: rows.rows.slice(0, request.limit).map((h) => ({ caseId: h.caseId, score: h.score })),
        complete: rows.rows.length <= request.limit,
        withheld: withheld.rows[0]?.withheld ?? false,
      };
    });
  }

  #exactNumber(query: AnalysedQuery): Expression<SqlBool> {
    const keys = query.caseNumberKeys;
    const byKey = keys.length === 0 ? sql<boolean>`false` : sql<boolean>`d.case_number_key in (${sql.join(keys)})`;
    return query.cnr === null ? byKey : sql<boolean>`(${byKey} or d.cnr = ${query.cnr})`;
  }

  #filters(request: SearchRequest): Expression<SqlBool> {
    const f = request.filters;
    const parts: Expression<SqlBool>[] = [sql<boolean>`true`];
    if (f.courtCodes?.length) parts.push(sql<boolean>`d.court_code in (${sql.join([...f.courtCodes])})`);
    if (f.years?.length) parts.push(sql<boolean>`d.decision_year in (${sql.join([...f.years])})`);
    if (f.caseTypes?.length) parts.push(sql<boolean>`d.case_type in (${sql.join([...f.caseTypes])})`);
    if (f.judges?.length) parts.push(sql<boolean>`d.judges && ${[...f.judges]}::text[]`);
    if (f.fromDate !== undefined) parts.push(sql<boolean>`d.decision_date >= ${f.fromDate}::date`);
    if (f.toDate !== undefined) parts.push(sql<boolean>`d.decision_date <= ${f.toDate}::date`);
    return sql<boolean>`(${sql.join(parts, sql` and `)})`;
  }
}
