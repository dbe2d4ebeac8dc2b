/**
 * The restricted-record check of search results: which cases of a page are withheld under
 * the removal policy right now. The search and vector indexes carry a withheld flag too,
 * but only as of their last projection: a case restricted since then is still unflagged
 * there, so every page of hits is checked here before it is shown. The PostgreSQL adapter
 * reads the case store's flag, the one the restriction command sets with its event.
 */
export interface CaseRestrictions {
  /** The ids among `caseIds` that are restricted now. Rejects when that cannot be read. */
  restrictedAmong(caseIds: readonly string[]): Promise<ReadonlySet<string>>;
}
