/**
 * The restricted-record check of one page of search hits, shared by keyword and semantic
 * search. An index's own withheld flag is only as fresh as its last projection, so the
 * hits of every page are checked against the authority (CaseRestrictions), one read for
 * the page, before their listings are taken: kept listings still at the version that read
 * found cost nothing more, the others load from the case store in one query. Two outcomes:
 * - checked: restricted cases leave the page and are counted as withheld, with hits the
 *   store no longer holds (de-indexed);
 * - degraded: the check failed or overran its deadline. The search still answers, but
 *   every listing on the page is masked, since any of them may have been restricted
 *   since the index was fed: the title and the party names (and their advocates) go,
 *   which is what names the people in a case; they are read from the store, not taken
 *   from those kept, which the check could not vouch for. Identifiers stay (case id,
 *   number, citations, court, bench, dates), so the caller can still open a case through
 *   GET /cases/:id, which checks restriction itself and fails closed.
 * A listing load that fails fails the search: there is nothing to show.
 */
import type { CaseRestrictions, CaseState } from '../../ports/case-restrictions.ts';
import type { CaseListing, CaseReader } from '../cases/case-reader.ts';

/** How long a page waits for the restriction check before answering masked. */
export const RESTRICTION_CHECK_TIMEOUT_MS = 1_000;

export interface RestrictionScreenDeps {
  readonly cases: CaseReader;
  readonly restrictions: CaseRestrictions;
  /** A check that failed or timed out (the page was answered masked). */
  readonly onDegraded: (error: unknown) => void;
  readonly timeoutMs?: number;
}

export interface ScreenedPage {
  /** Open listings in hit order; every one masked when `degraded`. */
  readonly cases: readonly CaseListing[];
  /** Hits left out: restricted now, or no longer in the case store. */
  readonly withheld: number;
  /** The restricted-record check could not be made (meta.restrictedCheckDegraded). */
  readonly degraded: boolean;
}

/** A listing that names no one: see the module header for what goes and what stays. */
export function masked(listing: CaseListing): CaseListing {
  return { ...listing, title: null, parties: { petitioners: [], respondents: [] } };
}

class RestrictionCheckTimeout extends Error {
  override readonly name = 'RestrictionCheckTimeout';
}

export class RestrictionScreen {
  constructor(private readonly deps: RestrictionScreenDeps) {}

  async page(caseIds: readonly string[]): Promise<ScreenedPage> {
    const states = await this.#states(caseIds);
    if (states === null) {
      const listings = await this.deps.cases.listings(caseIds);
      return { cases: listings.map(masked), withheld: caseIds.length - listings.length, degraded: true };
    }
    const open = caseIds.filter((id) => states.get(id)?.restricted === false);
    const cases = await this.deps.cases.currentListings(open, states);
    return { cases, withheld: caseIds.length - cases.length, degraded: false };
  }

  /** The page's states (restriction, version), or null when the check failed or timed out. */
  async #states(caseIds: readonly string[]): Promise<ReadonlyMap<string, CaseState> | null> {
    if (caseIds.length === 0) return new Map();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      const ms = this.deps.timeoutMs ?? RESTRICTION_CHECK_TIMEOUT_MS;
      timer = setTimeout(() => reject(new RestrictionCheckTimeout(`no answer within ${String(ms)} ms`)), ms);
    });
    try {
      return await Promise.race([this.deps.restrictions.statesOf(caseIds), deadline]);
    } catch (error) {
      this.deps.onDegraded(error);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
