/**
 * The restricted-record check of search results: which cases of a page are withheld under
 * the removal policy right now. The search and vector indexes carry a withheld flag too,
 * but only as of their last projection: a case restricted since then is still unflagged
 * there, so every page of hits is checked here before it is shown. The PostgreSQL adapter
 * reads the case store's flag, the one the restriction command sets with its event.
 *
 * The same read gives each row's change position (every write to a case row takes a new
 * one) and whether a stored analysis exists, so a listing cached by an earlier page can be
 * shown only while it is still the row's current version: one round trip per page checks
 * restriction and freshness together.
 */
export interface CaseState {
  readonly restricted: boolean;
  /** The row's change position: differs after any write to the row. */
  readonly version: number;
  readonly hasAnalysis: boolean;
}

export interface CaseRestrictions {
  /** The state of each of `caseIds` the store holds, read now; ids it does not hold are absent. Rejects when that cannot be read. */
  statesOf(caseIds: readonly string[]): Promise<ReadonlyMap<string, CaseState>>;
}
