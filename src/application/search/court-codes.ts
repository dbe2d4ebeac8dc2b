/**
 * Maps court filter values (reference court ids from /reference/courts) onto the court
 * codes the case store holds ("SC", eCourts codes such as "JKHC"), read from the store and
 * reused for a few minutes: ingest can add courts.
 */
import type { Clock } from '../../ports/clock.ts';
import { resolveCourt } from '../../reference/reference-data.ts';
import type { CaseReader } from '../cases/case-reader.ts';

const DEFAULT_TTL_MS = 5 * 60_000;

export class CourtCodes {
  #map: { byId: Map<string, string[]>; at: number } | undefined;

  constructor(private readonly deps: { readonly cases: CaseReader; readonly clock: Clock; readonly ttlMs?: number }) {}

  /** Stored codes of the given courts; empty when the store holds none of them. */
  async codesFor(courtIds: readonly string[]): Promise<string[]> {
    const now = this.deps.clock.now().getTime();
    if (!this.#map || now - this.#map.at > (this.deps.ttlMs ?? DEFAULT_TTL_MS)) {
      const byId = new Map<string, string[]>();
      for (const { courtCode, courtName } of await this.deps.cases.storedCourts()) {
        const id = resolveCourt(courtName)?.id;
        if (id !== undefined) byId.set(id, [...(byId.get(id) ?? []), courtCode]);
      }
      this.#map = { byId, at: now };
    }
    const byId = this.#map.byId;
    return [...new Set(courtIds.flatMap((id) => byId.get(id) ?? []))];
  }
}
