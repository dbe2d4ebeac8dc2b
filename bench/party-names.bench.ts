/**
 * Party names as users type them: a held-out evaluation of keyword search on the real
 * corpus (the first PARTY_BENCH_SC_ROWS Supreme Court metadata rows, default 16,000, and
 * every other real record), on PostgreSQL full-text search and on Meilisearch, for the
 * current code and, when PARTY_BENCH_BASE names a checkout of an older commit, for that
 * code in the same run. Queries are built from the cases' own party names at run time:
 * - suffix: a legal word swapped between its spelled-out and abbreviated form (Limited /
 *   Ltd., Private / Pvt., Company / Co., Association / Assocn., Corporation / Corpn., ...);
 * - initials: a three-word personal name with its first names as initials ("R. K. Sharma");
 * - common: a two-word personal name that is a party on its own and part of many longer
 *   names: found when a case with exactly that party is in the top 10, and "exact first"
 *   when the first hit is one;
 * - typo: a short word (5–6 letters) with an inner vowel dropped ("bihr"), lower case.
 * Each query is split into tuning or held-out by a hash of its expected case (the split
 * never moves between runs); figures are on the held-out part. A query succeeds when a case
 * having a party of exactly the source name (normalised) is in the top 10 of a relevance
 * search of 10 (the request POST /search/cases sends the index).
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import postgres from 'postgres';
import { MeilisearchSearchIndex } from '../src/adapters/meilisearch/search-index.ts';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import type { Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/open.ts';
import { normalisePartyName } from '../src/domain/search/party-name.ts';
import type { SearchIndex } from '../src/ports/search-index.ts';
import { caseRowToSearchDocument } from '../src/projections/search-index-projector.ts';
import { dropIndexes, meilisearchForSuite, meilisearchMissing } from '../test/support/meilisearch.ts';
import { ingestSlice } from '../test/support/search-corpus.ts';
import { table } from './stats.ts';

type Kind = 'suffix' | 'initials' | 'common' | 'typo';
const KINDS: readonly Kind[] = ['suffix', 'initials', 'common', 'typo'];
/** Held-out queries per kind. */
const PER_KIND = Number(process.env.PARTY_BENCH_PER_KIND ?? 20);
const SC_ROWS = Number(process.env.PARTY_BENCH_SC_ROWS ?? 16_000);

/** The evaluation's own forms (spelled out, as users abbreviate): not the product's, which learns from the corpus. */
const FORMS: readonly (readonly [string, string])[] = [
  ['LIMITED', 'Ltd.'],
  ['PRIVATE', 'Pvt.'],
  ['COMPANY', 'Co.'],
  ['ASSOCIATION', 'Assocn.'],
  ['CORPORATION', 'Corpn.'],
  ['GOVERNMENT', 'Govt.'],
  ['SOCIETY', 'Socy.'],
  ['DEVELOPMENT', 'Dev.'],
  ['DISTRICT', 'Distt.'],
  ['INDUSTRIES', 'Inds.'],
  ['MANUFACTURING', 'Mfg.'],
  ['ENGINEERING', 'Engg.'],
  ['BROTHERS', 'Bros.'],
  ['DEPARTMENT', 'Deptt.'],
  ['COMMISSIONER', 'Commr.'],
  ['SECRETARY', 'Secy.'],
  ['ADMINISTRATION', 'Admn.'],
  ['ASSISTANT', 'Asstt.'],
  ['ADDITIONAL', 'Addl.'],
  ['GENERAL', 'Genl.'],
  ['MANAGEMENT', 'Mgmt.'],
  ['ACQUISITION', 'Acqn.'],
  ['AUTHORITY', 'Auth.'],
];
/** Words that make a name an organisation's, not a person's. */
const NOT_PERSONAL =
  /\b(STATE|UNION|INDIA|OF|THE|AND|BANK|BOARD|COURT|CITY|NAGAR|TRUST|MILLS?|WORKS|SABHA|SAMITI|PANCHAYAT|COUNCIL|COLLEGE|SCHOOL|UNIVERSITY|INSTITUTE|POLICE|OFFICER|INDUSTRIES|ENTERPRISES|TRADERS|TEMPLE|HOSPITAL|INSURANCE|ELECTRICITY|CORP\w*|COMPANY|CO|LTD|LIMITED|PVT|PRIVATE|ASSOC\w*|SOCIETY|GOVT|GOVERNMENT|COMMISSIONER|DIRECTOR|SECRETARY|COLLECTOR|OFFICE|DEPARTMENT|AUTHORITY|M\/S)\b/;

interface Query {
  readonly kind: Kind;
  readonly query: string;
  /** Normalised party name a right answer carries. */
  readonly party: string;
  readonly caseId: string;
}

function heldOut(caseId: string, kind: Kind): boolean {
  return (createHash('sha256').update(`${kind}:${caseId}`).digest()[0] ?? 0) % 2 === 1;
}

function title(word: string): string {
  return word.charAt(0) + word.slice(1).toLowerCase();
}

function dropInnerVowel(word: string): string | null {
  for (let i = word.length - 2; i >= 1; i -= 1) if ('AEIOU'.includes(word[i] ?? '')) return word.slice(0, i) + word.slice(i + 1);
  return null;
}

/** Every query the corpus yields, per kind, in caseId order. */
async function buildQueries(db: Db): Promise<Query[]> {
  const rows = await sql<{ caseId: string; name: string }>`
    select c.case_id as "caseId", p->>'name' as name from cases c, jsonb_array_elements(c.petitioners || c.respondents) p
    where p->>'name' is not null order by c.case_id`.execute(db);
  const byName = new Map<string, Set<string>>();
  const raw = rows.rows.map((r) => ({ caseId: r.caseId, raw: r.name.toUpperCase(), name: normalisePartyName(r.name) }));
  for (const r of raw) byName.set(r.name, (byName.get(r.name) ?? new Set()).add(r.caseId));
  const names = [...byName.keys()];
  const unique = (name: string) => byName.get(name)?.size === 1;
  const out: Query[] = [];
  const seen = new Set<string>();
  const push = (q: Query) => {
    if (seen.has(`${q.kind}:${q.party}`)) return;
    seen.add(`${q.kind}:${q.party}`);
    out.push(q);
  };
  for (const r of raw) {
    const words = r.name.split(' ');
    if (!unique(r.name) || words.length < 2) continue;
    // suffix: one legal word swapped to its other form, read from the raw spelling.
    const rawWords = r.raw.replace(/&\s*(ORS|ANR)\.?/g, ' ').match(/[A-Z0-9]+\.?/g) ?? [];
    for (const [long, short] of FORMS) {
      const shortBare = short.replace('.', '').toUpperCase();
      const at = rawWords.findIndex((w) => w.replace('.', '') === long || w.replace('.', '') === shortBare);
      if (at < 0 || rawWords.length < 3) continue;
      const swapped = rawWords[at]?.replace('.', '') === long ? short : title(long);
      const query = rawWords.map((w, i) => (i === at ? swapped : title(w.replace('.', '')))).join(' ');
      push({ kind: 'suffix', query, party: r.name, caseId: r.caseId });
      break;
    }
    const personal = !NOT_PERSONAL.test(r.name) && words.every((w) => /^[A-Z]{3,}$/.test(w));
    if (personal && words.length === 3)
      push({
        kind: 'initials',
        query: `${words[0]?.[0] ?? ''}. ${words[1]?.[0] ?? ''}. ${title(words[2] ?? '')}`,
        party: r.name,
        caseId: r.caseId,
      });
    const short = words.findIndex((w) => /^[A-Z]{5,6}$/.test(w));
    const slipped = short < 0 ? null : dropInnerVowel(words[short] ?? '');
    if (slipped !== null && words.length <= 4)
      push({
        kind: 'typo',
        query: words
          .map((w, i) => (i === short ? slipped : w === 'GOVERNMENT' ? 'GOVT' : w))
          .join(' ')
          .toLowerCase(),
        party: r.name,
        caseId: r.caseId,
      });
  }
  // common: two-word personal names that are a party and also part of at least 5 longer names.
  const containing = new Map<string, number>();
  for (const name of names) {
    const words = name.split(' ');
    for (let i = 0; i + 1 < words.length; i += 1) {
      if (words.length === 2) continue;
      const pair = `${words[i] ?? ''} ${words[i + 1] ?? ''}`;
      containing.set(pair, (containing.get(pair) ?? 0) + 1);
    }
  }
  for (const name of names) {
    const words = name.split(' ');
    if (words.length !== 2 || NOT_PERSONAL.test(name) || !words.every((w) => /^[A-Z]{3,}$/.test(w))) continue;
    if ((containing.get(name) ?? 0) < 5) continue;
    const caseId = [...(byName.get(name) ?? [])].sort()[0] ?? '';
    push({ kind: 'common', query: words.map(title).join(' '), party: name, caseId });
  }
  return out;
}

/** PER_KIND queries of each kind, spread evenly over the candidates of the chosen half. */
function pick(all: readonly Query[], wantHeldOut: boolean): Query[] {
  return KINDS.flatMap((kind) => {
    const of = all.filter((q) => q.kind === kind && heldOut(q.caseId, kind) === wantHeldOut);
    const step = Math.max(1, Math.floor(of.length / PER_KIND));
    return of.filter((_, i) => i % step === 0).slice(0, PER_KIND);
  });
}

interface Score {
  found: Record<Kind, number>;
  exactFirst: number;
  missed: string[];
}

async function score(index: SearchIndex, queries: readonly Query[], partiesOf: Map<string, Set<string>>): Promise<Score> {
  const found: Record<Kind, number> = { suffix: 0, initials: 0, common: 0, typo: 0 };
  let exactFirst = 0;
  const missed: string[] = [];
  for (const q of queries) {
    const { hits } = await index.search({ query: q.query, filters: {}, sort: 'relevance', offset: 0, limit: 10 });
    const right = (caseId: string) => partiesOf.get(caseId)?.has(q.party) ?? false;
    if (hits.some((h) => right(h.caseId))) found[q.kind] += 1;
    else missed.push(`${q.kind}: ${q.query}`);
    if (q.kind === 'common' && hits[0] !== undefined && right(hits[0].caseId)) exactFirst += 1;
    else if (q.kind === 'common')
      missed.push(`not first: ${q.query} (first: ${[...(partiesOf.get(hits[0]?.caseId ?? '') ?? [])].join('; ')})`);
  }
  return { found, exactFirst, missed };
}

interface Engines {
  readonly postgres: SearchIndex;
  readonly meilisearch?: SearchIndex;
}

async function openEngines(
  dir: string,
  db: Db,
  meili: { url: string; apiKey: string | undefined } | undefined,
  uid: string,
): Promise<Engines> {
  const pg = (await import(`${dir}/src/adapters/postgres/search-index.ts`)) as { PostgresSearchIndex: typeof PostgresSearchIndex };
  const ms = (await import(`${dir}/src/adapters/meilisearch/search-index.ts`)) as { MeilisearchSearchIndex: typeof MeilisearchSearchIndex };
  return {
    postgres: new pg.PostgresSearchIndex(db),
    ...(meili ? { meilisearch: await ms.MeilisearchSearchIndex.open({ url: meili.url, apiKey: meili.apiKey, indexUid: uid }) } : {}),
  };
}

export interface PartyNameFigures {
  readonly heldOut: number;
  readonly results: { readonly code: string; readonly engine: string; readonly score: Score }[];
}

export async function partyNamesBench(
  adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL,
): Promise<PartyNameFigures | null> {
  if (!adminUrl) {
    console.log('(Party-name evaluation skipped: needs PostgreSQL)');
    return null;
  }
  const name = `bench_party_${String(Date.now())}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), { max: 4 });
  const meili = meilisearchMissing ? undefined : await meilisearchForSuite();
  const prefix = `party_bench_${String(Date.now())}`;
  try {
    const db = database.db;
    await migrate(db);
    await ingestSlice(db, SC_ROWS);
    const stored = await db.selectFrom('cases').selectAll().orderBy('caseId').execute();
    const documents = stored.map(caseRowToSearchDocument);
    const partiesOf = new Map(documents.map((d) => [d.caseId, new Set([...d.petitioners, ...d.respondents].map(normalisePartyName))]));
    const queries = pick(await buildQueries(db), true);
    const codes: [string, string][] = [
      ['this commit', new URL('..', import.meta.url).pathname.replace(/\/$/, '')],
      ...(process.env.PARTY_BENCH_BASE ? [['base', process.env.PARTY_BENCH_BASE] as [string, string]] : []),
    ];
    const results: PartyNameFigures['results'][number][] = [];
    for (const [code, dir] of codes) {
      const engines = await openEngines(dir, db, meili, `${prefix}_${code.replace(/\W/g, '')}`);
      // Both codes write the same search_documents rows; the base's write is the one it would make.
      for (let i = 0; i < documents.length; i += 2_000) {
        const batch = documents.slice(i, i + 2_000);
        await Promise.all([engines.postgres.upsert(batch), engines.meilisearch?.upsert(batch)]);
      }
      await sql`analyze search_documents`.execute(db);
      results.push({ code, engine: 'postgres', score: await score(engines.postgres, queries, partiesOf) });
      if (engines.meilisearch) results.push({ code, engine: 'meilisearch', score: await score(engines.meilisearch, queries, partiesOf) });
    }
    return { heldOut: queries.length, results };
  } finally {
    if (meili) {
      await dropIndexes(meili.url, meili.apiKey, prefix);
      await meili.close();
    }
    await database.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

export function printPartyNames(f: PartyNameFigures | null): void {
  if (f === null) return;
  const per = f.heldOut / KINDS.length;
  console.log(
    `\nParty names as users type them: right case in the top 10, held-out queries (${String(per)} per kind; target Meilisearch ≥ PostgreSQL)`,
  );
  console.log(
    table([
      ['code', 'engine', ...KINDS, 'all', 'common: exact party first'],
      ...f.results.map((r) => [
        r.code,
        r.engine,
        ...KINDS.map((k) => r.score.found[k]),
        `${String(KINDS.reduce((a, k) => a + r.score.found[k], 0))}/${String(f.heldOut)}`,
        `${String(r.score.exactFirst)}/${String(per)}`,
      ]),
    ]),
  );
  if (process.env.PARTY_BENCH_VERBOSE) for (const r of f.results) console.log(r.code, r.engine, 'missed:', r.score.missed.join(' | '));
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) printPartyNames(await partyNamesBench());
