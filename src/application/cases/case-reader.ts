/**
 * Reads cases for the API: one case by its id or by a case number in any printed form,
 * and the listings of a page of search hits. A case withheld under the removal policy is
 * reported as restricted, never returned; for search pages that decision belongs to the
 * restricted-record check (application/search/restriction-screen.ts), so a listing carries
 * content only, and only the fields a search answer prints. Listings are kept per process
 * with the row version they were read at (listing-cache.ts); a kept one is served only
 * when the check's fresh read of the row's version still matches it, so an edit or a
 * restriction by any instance is seen by the next page. Judgment texts are kept the same
 * way for reads by id (`#byId`). Several documents can share one case number
 * (an appeal and its connected matters, a judgment and its registry record); the one
 * returned is chosen deterministically: a document-bearing record first, then the latest
 * decision, then the smallest case id; the others are listed so a caller can fetch them.
 */
import { sql, type Selectable, type SqlBool } from 'kysely';
import type { Database, Db } from '../../db/database.ts';
import { normaliseCaseNumber } from '../../domain/case/case-number.ts';
import type { CourtLevel, Party } from '../../domain/case/case-record.ts';
import type { CaseState } from '../../ports/case-restrictions.ts';
import { ListingCache } from './listing-cache.ts';

export interface CaseView {
  readonly caseId: string;
  readonly caseNumber: string;
  readonly court: { readonly code: string; readonly name: string; readonly level: CourtLevel };
  readonly bench: string | null;
  readonly caseType: string | null;
  readonly title: string | null;
  readonly parties: { readonly petitioners: readonly Party[]; readonly respondents: readonly Party[] };
  readonly judges: readonly string[];
  readonly decisionDate: string | null;
  readonly filingDate: string | null;
  readonly decisionYear: number | null;
  readonly citations: readonly string[];
  readonly summary: string | null;
  readonly text: string | null;
  readonly documentBearing: boolean;
  readonly source: string;
  readonly restricted: boolean;
  /** Whether a stored AI analysis of this document exists. */
  readonly hasAnalysis: boolean;
}

/** A search result's content: what its answer prints; no judgment text, and no restriction flag (see the module header). */
export type CaseListing = Omit<CaseView, 'text' | 'restricted' | 'summary' | 'decisionYear' | 'source'>;

/** Another document filed under the same case number. */
export interface SiblingDocument {
  readonly caseId: string;
  readonly caseNumber: string;
  readonly courtName: string;
  readonly decisionDate: string | null;
}

export type CaseLookup =
  { readonly found: CaseView; readonly siblings: readonly SiblingDocument[] } | { readonly missing: 'NotFound' | 'Restricted' };

const COLUMNS = [
  'caseId',
  'caseNumber',
  'caseNumberNormalised',
  'courtCode',
  'courtName',
  'courtLevel',
  'bench',
  'caseType',
  'title',
  'petitioners',
  'respondents',
  'judges',
  'decisionDate',
  'filingDate',
  'decisionYear',
  'citations',
  'summary',
  'text',
  'documentBearing',
  'source',
  'restricted',
] as const;

type Row = Pick<Selectable<Database['cases']>, (typeof COLUMNS)[number]> & { hasAnalysis: SqlBool };

/** Every column but the long ones, which a read by id takes from the process's kept texts when it can. */
const SMALL_COLUMNS = COLUMNS.filter((c): c is Exclude<(typeof COLUMNS)[number], 'text' | 'summary'> => c !== 'text' && c !== 'summary');

interface KeptText {
  readonly text: string | null;
  readonly summary: string | null;
}

/** Judgment texts kept per process, in characters: about 400 judgments of 40,000 (16 to 32 MB). */
const TEXT_CHARACTERS_KEPT = 16_000_000;

/** A search result prints no judgment text (which can run to hundreds of kilobytes), summary, year or source. */
const LISTING_COLUMNS = [
  'caseId',
  'caseNumber',
  'courtCode',
  'courtName',
  'courtLevel',
  'bench',
  'caseType',
  'title',
  'petitioners',
  'respondents',
  'judges',
  'decisionDate',
  'filingDate',
  'citations',
  'documentBearing',
] as const;

type ListingRow = Pick<Row, (typeof LISTING_COLUMNS)[number]> & { hasAnalysis: SqlBool };

/** Listings kept per process: about 1 KB each. */
const LISTINGS_KEPT = 20_000;

const MAX_SIBLINGS = 20;

function view(row: Row): CaseView {
  return {
    ...listing(row),
    decisionYear: row.decisionYear,
    summary: row.summary,
    source: row.source,
    text: row.text,
    restricted: row.restricted,
  };
}

function listing(row: ListingRow): CaseListing {
  return {
    caseId: row.caseId,
    caseNumber: row.caseNumber,
    court: { code: row.courtCode, name: row.courtName, level: row.courtLevel as CourtLevel },
    bench: row.bench,
    caseType: row.caseType,
    title: row.title,
    parties: { petitioners: row.petitioners as Party[], respondents: row.respondents as Party[] },
    judges: row.judges as string[],
    decisionDate: row.decisionDate,
    filingDate: row.filingDate,
    citations: row.citations as string[],
    documentBearing: row.documentBearing,
    hasAnalysis: Boolean(row.hasAnalysis),
  };
}

/** Document-bearing first, latest decision first (undated last), then case id. */
function preferred(a: Row, b: Row): number {
  if (a.documentBearing !== b.documentBearing) return a.documentBearing ? -1 : 1;
  const da = a.decisionDate ?? '';
  const db = b.decisionDate ?? '';
  if (da !== db) return da < db ? 1 : -1;
  return a.caseId < b.caseId ? -1 : a.caseId > b.caseId ? 1 : 0;
}

/** The case columns plus whether a stored analysis exists, for a query over `cases`. */
function withAnalysisFlag<C extends (typeof COLUMNS)[number] | 'changeSeq'>(db: Db, columns: readonly C[]) {
  return db
    .selectFrom('cases')
    .select(columns)
    .select((eb) =>
      eb
        .exists(eb.selectFrom('caseAnalyses').select('caseAnalyses.caseId').whereRef('caseAnalyses.caseId', '=', 'cases.caseId'))
        .as('hasAnalysis'),
    );
}

export class CaseReader {
  readonly #kept = new ListingCache<CaseListing>(LISTINGS_KEPT);
  readonly #texts: ListingCache<KeptText>;

  /** `textCharacters`: how many characters of judgment text and summary this process keeps. */
  constructor(
    private readonly db: Db,
    options: { readonly textCharacters?: number } = {},
  ) {
    const weigh = (t: KeptText) => (t.text?.length ?? 0) + (t.summary?.length ?? 0) + 1;
    this.#texts = new ListingCache<KeptText>(options.textCharacters ?? TEXT_CHARACTERS_KEPT, weigh);
  }

  /** `idOrNumber` is a case id, else read as a case number in any printed form. */
  async lookup(idOrNumber: string): Promise<CaseLookup> {
    const byId = await this.#byId(idOrNumber);
    if (byId) return byId.restricted ? { missing: 'Restricted' } : { found: view(byId), siblings: [] };

    const normalised = normaliseCaseNumber(idOrNumber);
    if (normalised === '') return { missing: 'NotFound' };
    const rows = await withAnalysisFlag(this.db, COLUMNS).where('caseNumberNormalised', '=', normalised).execute();
    if (rows.length === 0) return { missing: 'NotFound' };
    const open = rows.filter((r) => !r.restricted).sort(preferred);
    const [first, ...rest] = open;
    if (!first) return { missing: 'Restricted' };
    return {
      found: view(first),
      siblings: rest.slice(0, MAX_SIBLINGS).map((r) => ({
        caseId: r.caseId,
        caseNumber: r.caseNumber,
        courtName: r.courtName,
        decisionDate: r.decisionDate,
      })),
    };
  }

  /**
   * One case by id in one round trip. The row's text and summary are read only when the
   * row moved on from the version whose text this process keeps: a read of a case read
   * before sends its small columns alone, not 24 to 45 KB of judgment that PostgreSQL
   * would decompress and the driver decode again.
   */
  async #byId(caseId: string): Promise<Row | undefined> {
    const keptVersion = this.#texts.versionOf(caseId) ?? -1;
    const row = await withAnalysisFlag(this.db, [...SMALL_COLUMNS, 'changeSeq'])
      .select([
        sql<string | null>`case when change_seq = ${keptVersion} then null else text end`.as('text'),
        sql<string | null>`case when change_seq = ${keptVersion} then null else summary end`.as('summary'),
      ])
      .where('caseId', '=', caseId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const kept = this.#texts.get(caseId, row.changeSeq);
    if (kept !== undefined) return { ...row, ...kept };
    // The texts were left out for a kept version that another read pushed out meanwhile: read them.
    if (row.changeSeq === keptVersion) return this.#byId(caseId);
    this.#texts.set(caseId, row.changeSeq, { text: row.text, summary: row.summary });
    return row;
  }

  /** The listings behind search hits, in the order given; ids the store does not hold are left out. */
  async listings(caseIds: readonly string[]): Promise<CaseListing[]> {
    if (caseIds.length === 0) return [];
    const rows = await withAnalysisFlag(this.db, LISTING_COLUMNS).where('caseId', 'in', caseIds).execute();
    const byId = new Map(rows.map((r) => [r.caseId, r]));
    return caseIds.flatMap((id) => {
      const row = byId.get(id);
      return row ? [listing(row)] : [];
    });
  }

  /**
   * The listings of open hits whose state the restricted-record check has just read, in the
   * order given: a kept listing still at that version costs no round trip; the others load
   * in one query and are kept. A row restricted between the check and that load is left out.
   */
  async currentListings(caseIds: readonly string[], states: ReadonlyMap<string, CaseState>): Promise<CaseListing[]> {
    const found = new Map<string, CaseListing>();
    const missing: string[] = [];
    for (const id of caseIds) {
      const state = states.get(id);
      if (state === undefined) continue;
      const kept = this.#kept.get(id, state.version);
      if (kept === undefined) missing.push(id);
      else found.set(id, kept.hasAnalysis === state.hasAnalysis ? kept : { ...kept, hasAnalysis: state.hasAnalysis });
    }
    if (missing.length > 0) {
      const rows = await withAnalysisFlag(this.db, [...LISTING_COLUMNS, 'restricted', 'changeSeq'])
        .where('caseId', 'in', missing)
        .execute();
      for (const row of rows) {
        if (row.restricted) continue;
        const loaded = listing(row);
        this.#kept.set(row.caseId, row.changeSeq, loaded);
        found.set(row.caseId, loaded);
      }
    }
    return caseIds.flatMap((id) => {
      const l = found.get(id);
      return l ? [l] : [];
    });
  }

  /** Every open document filed under one normalised case number, text included, in `preferred` order. */
  async documentsSharingNumber(caseNumberNormalised: string): Promise<CaseView[]> {
    const rows = await withAnalysisFlag(this.db, COLUMNS)
      .where('caseNumberNormalised', '=', caseNumberNormalised)
      .where('restricted', '=', false)
      .execute();
    return rows.sort(preferred).map(view);
  }

  /**
   * The normalised case number and the court's own document links (paths relative to the
   * court's site, English first) that a record names.
   */
  async sourceOf(caseId: string): Promise<{ caseNumberNormalised: string; documentLinks: string[] } | null> {
    const row = await this.db.selectFrom('cases').select(['caseNumberNormalised', 'extra']).where('caseId', '=', caseId).executeTakeFirst();
    if (!row) return null;
    const links = (row.extra as { pdfLinks?: unknown }).pdfLinks;
    const parsed = (Array.isArray(links) ? links : []).filter(
      (l): l is { path: string; language: string | null } =>
        typeof l === 'object' && l !== null && typeof (l as { path?: unknown }).path === 'string',
    );
    const english = (l: { language: string | null }) => (l.language === null || /english/i.test(l.language) ? 0 : 1);
    return {
      caseNumberNormalised: row.caseNumberNormalised,
      documentLinks: [...parsed].sort((a, b) => english(a) - english(b)).map((l) => l.path),
    };
  }

  /** Distinct stored (court code, court name) pairs, for mapping court filters onto stored codes. */
  async storedCourts(): Promise<{ courtCode: string; courtName: string }[]> {
    return this.db.selectFrom('cases').select(['courtCode', 'courtName']).distinct().execute();
  }
}
