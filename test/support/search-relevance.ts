/**
 * Relevance of a keyword search index on the real corpus, shared by the search bench and
 * the relevance int test: real case numbers rewritten in another printed form, and real
 * party names given an honorific and "& Ors." or a typo, each a probe that names the one
 * case it should find; an index scores a probe when that case is in its top 10 (of a
 * keyword search, or for party names also of a party retrieval, `searchParties`). Probes
 * are drawn from an ingested `cases` table by a fixed spread over the sorted candidates, so
 * every run and every adapter meets the same ones. Two spreads interleave without sharing
 * a case: the one the bench reports (`tuning`) and a `held-out` one the int test asserts on,
 * so a change fitted to the bench's probes is checked on others.
 */
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import { parseScApiCaseNumber } from '../../src/domain/case/case-number.ts';
import { normalisePartyName } from '../../src/domain/search/party-name.ts';
import type { PartySearchIndex, SearchIndex, SearchRequest } from '../../src/ports/search-index.ts';

export interface Probe {
  readonly query: string;
  readonly caseId: string;
}

export type ProbeSpread = 'tuning' | 'held-out';

export interface RelevanceProbes {
  readonly caseNumbers: readonly Probe[];
  readonly honorifics: readonly Probe[];
  readonly typos: readonly Probe[];
}

const LONG_TYPES: Readonly<Record<string, string>> = {
  'C.A.': 'Civil Appeal',
  'Crl.A.': 'Criminal Appeal',
  'W.P.(C)': 'Writ Petition (Civil)',
  'W.P.(Crl.)': 'Writ Petition (Criminal)',
  'SLP(C)': 'Special Leave Petition (Civil)',
  'SLP(Crl)': 'Special Leave Petition (Criminal)',
  'T.P.(C)': 'Transfer Petition (Civil)',
  'R.P.(C)': 'Review Petition (Civil)',
  'CONMT.PET.(C)': 'Contempt Petition (Civil)',
};

/**
 * `n` of the sorted candidates, evenly spaced: every step-th from the first (`tuning`) or
 * from half a step on (`held-out`), so the two spreads never pick the same candidate.
 */
function spread<T>(items: readonly T[], n: number, which: ProbeSpread): T[] {
  const step = Math.max(1, Math.floor(items.length / n));
  const phase = which === 'tuning' ? 0 : Math.floor(step / 2);
  return items.filter((_, i) => i % step === phase).slice(0, n);
}

/** Supreme Court case numbers, alternately in the judgment-header form and the short form users type. */
export async function caseNumberProbes(db: Db, n: number, which: ProbeSpread): Promise<Probe[]> {
  const rows = await db
    .selectFrom('cases')
    .select(['caseId', 'caseNumber'])
    .where('source', '=', 'sc-judgments-metadata')
    .orderBy('caseId')
    .execute();
  const parsed = rows.flatMap((r) => {
    const parts = parseScApiCaseNumber(r.caseNumber);
    return parts ? [{ caseId: r.caseId, parts }] : [];
  });
  return spread(parsed, n, which).map(({ caseId, parts }, i) => {
    const numbers = parts.from === parts.to ? parts.from : `${parts.from}-${parts.to}`;
    const long = LONG_TYPES[parts.type];
    const query =
      long && i % 2 === 0 ? `${long} No. ${numbers} of ${parts.year}` : `${parts.type.replace(/[.]/g, '')} ${numbers}/${parts.year}`;
    return { caseId, query };
  });
}

/** Swaps two letters in the middle of the longest word: the commonest typing slip. */
export function typo(name: string): string {
  const words = name.split(' ');
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
  const at = Math.floor(longest.length / 2);
  const slipped = longest.slice(0, at - 1) + (longest[at] ?? '') + (longest[at - 1] ?? '') + longest.slice(at + 1);
  return words.map((w) => (w === longest ? slipped : w)).join(' ');
}

/**
 * First petitioners of Supreme Court cases whose name no other case's first petitioner
 * carries, of two words or more with one long enough to misspell: `n` of them, alternately
 * with an honorific and "& Ors." and with a typo.
 */
export async function partyProbes(db: Db, n: number, which: ProbeSpread): Promise<{ honorifics: Probe[]; typos: Probe[] }> {
  const rows = await db
    .selectFrom('cases')
    .select(['caseId', sql<string>`petitioners->0->>'name'`.as('name')])
    .where('source', '=', 'sc-judgments-metadata')
    .where(sql<boolean>`petitioners->0->>'name' is not null`)
    .orderBy('caseId')
    .execute();
  const uses = new Map<string, number>();
  for (const r of rows) uses.set(normalisePartyName(r.name), (uses.get(normalisePartyName(r.name)) ?? 0) + 1);
  const distinct = rows.filter((r) => {
    const name = normalisePartyName(r.name);
    return uses.get(name) === 1 && name.split(' ').length >= 2 && name.split(' ').some((w) => w.length >= 5);
  });
  const picked = spread(distinct, n, which);
  const honorifics = ['Shri', 'Smt.', 'M/s.', 'Dr.'];
  return {
    honorifics: picked
      .filter((_, i) => i % 2 === 0)
      .map((r, i) => ({ caseId: r.caseId, query: `${honorifics[i % 4] ?? ''} ${normalisePartyName(r.name)} & Ors.` })),
    typos: picked.filter((_, i) => i % 2 === 1).map((r) => ({ caseId: r.caseId, query: typo(normalisePartyName(r.name)).toLowerCase() })),
  };
}

export async function relevanceProbes(
  db: Db,
  counts: { caseNumbers: number; partyNames: number },
  which: ProbeSpread,
): Promise<RelevanceProbes> {
  return { caseNumbers: await caseNumberProbes(db, counts.caseNumbers, which), ...(await partyProbes(db, counts.partyNames, which)) };
}

export interface Top10 {
  readonly found: number;
  readonly of: number;
  /** The probes whose case was not in the top 10, for a failure message. */
  readonly missed: readonly Probe[];
}

async function top10Of(ranked: (query: string) => Promise<readonly { caseId: string }[]>, probes: readonly Probe[]): Promise<Top10> {
  const missed: Probe[] = [];
  for (const p of probes) if (!(await ranked(p.query)).some((h) => h.caseId === p.caseId)) missed.push(p);
  return { found: probes.length - missed.length, of: probes.length, missed };
}

/** How many probes find their case in the index's top 10 (keyword search, relevance order, no filters). */
export function top10(index: SearchIndex, probes: readonly Probe[]): Promise<Top10> {
  const request = (query: string): SearchRequest => ({ query, filters: {}, sort: 'relevance', offset: 0, limit: 10 });
  return top10Of(async (query) => (await index.search(request(query))).hits, probes);
}

/** How many party-name probes find their case among the first 10 of a party retrieval (the litigation check's). */
export function partyTop10(index: PartySearchIndex, probes: readonly Probe[]): Promise<Top10> {
  return top10Of(async (name) => (await index.searchParties({ name, filters: {}, limit: 10 })).hits, probes);
}
