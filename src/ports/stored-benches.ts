/**
 * The judge directory reads the benches the case store holds through this shape, one row per
 * judge spelling and court; the Postgres adapter (adapters/postgres/stored-benches.ts) answers it.
 */
/** One (judge spelling, court) pair as the case store holds it. */
export interface StoredBench {
  readonly name: string;
  readonly courtName: string;
  readonly firstDecision: string | null;
  readonly lastDecision: string | null;
  readonly cases: number;
}
