/**
 * Traces a leaked extract to the billing account whose key fetched it. Every billing
 * account (each organisation, and each user without one: see `billingAccountOf`) is a
 * candidate; each is scored against the extract's votes and given the chance that a
 * random tag would fit as well. An account is named only when that chance, multiplied by
 * the number of candidates (so that looking at many accounts cannot manufacture a match),
 * is at most 1 in 10,000 and no other account fits as well; otherwise the answer is
 * "no watermark found", with the reason.
 */
import type { Db } from '../../db/database.ts';
import { extract, type Extraction } from '../../domain/watermark/extract.ts';
import { TagMatcher, type TagFit } from '../../domain/watermark/match.ts';
import type { AccountTag } from '../../domain/watermark/tag.ts';

/** Family-wise chance of naming a wrong account that the tracer accepts. */
export const TRACE_ALPHA = 1e-4;

export interface BillingAccount {
  readonly accountId: string;
  readonly kind: 'organization' | 'user';
  readonly name: string;
}

export interface Candidate extends TagFit {
  readonly account: BillingAccount;
}

export type TraceResult =
  | {
      readonly found: true;
      readonly account: BillingAccount;
      /** Chance that some candidate fits this well by luck (Bonferroni over all candidates). */
      readonly familyPValue: number;
      readonly best: Candidate;
      readonly runnerUp: Candidate | null;
      readonly extraction: Extraction;
      readonly candidates: number;
    }
  | {
      readonly found: false;
      readonly reason: 'no-watermark' | 'insufficient-evidence' | 'ambiguous' | 'no-candidates';
      readonly familyPValue: number;
      readonly best: Candidate | null;
      readonly runnerUp: Candidate | null;
      readonly extraction: Extraction;
      readonly candidates: number;
    };

/** Every account credits are billed to: organisations, and users outside any organisation. */
export async function listBillingAccounts(db: Db): Promise<BillingAccount[]> {
  const organizations = await db.selectFrom('organizations').select(['organizationId', 'name']).orderBy('organizationId').execute();
  const users = await db.selectFrom('users').select(['userId', 'name']).where('organizationId', 'is', null).orderBy('userId').execute();
  return [
    ...organizations.map((o) => ({ accountId: o.organizationId, kind: 'organization' as const, name: o.name })),
    ...users.map((u) => ({ accountId: u.userId, kind: 'user' as const, name: u.name })),
  ];
}

export function traceExtract(text: string, accounts: readonly BillingAccount[], tagOf: (accountId: string) => AccountTag): TraceResult {
  const extraction = extract(text);
  const matcher = new TagMatcher(extraction);
  const ranked = accounts
    .map((account) => ({ account, ...matcher.fit(tagOf(account.accountId)) }))
    .sort((a, b) => a.pValue - b.pValue || b.score - a.score);
  const best = ranked[0] ?? null;
  const runnerUp = ranked[1] ?? null;
  const familyPValue = best ? Math.min(1, best.pValue * accounts.length) : 1;
  const common = { familyPValue, best, runnerUp, extraction, candidates: accounts.length };
  if (extraction.marks.onCarrier === 0) return { found: false, reason: 'no-watermark', ...common };
  if (!best) return { found: false, reason: 'no-candidates', ...common };
  if (familyPValue > TRACE_ALPHA) return { found: false, reason: 'insufficient-evidence', ...common };
  if (runnerUp && runnerUp.score >= best.score) return { found: false, reason: 'ambiguous', ...common };
  return { found: true, account: best.account, ...common, best };
}

export async function traceLeak(db: Db, text: string, tagOf: (accountId: string) => AccountTag): Promise<TraceResult> {
  return traceExtract(text, await listBillingAccounts(db), tagOf);
}
