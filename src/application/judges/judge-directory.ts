/**
 * The judge lookup behind GET /judges/search: the judges named on the benches of the case
 * store (Supreme Court metadata, High Court records), each under the exact spelling the
 * store holds (the spelling a judgeName filter must use), merged with the KHOJ profiles of
 * High Court judges for their courts and tenure. A KHOJ judge with no case in the store
 * is listed under the KHOJ spelling with no cases, so the lookup can say who sat where
 * even when no record of theirs is held yet. Built lazily and rebuilt after `ttlMs`,
 * since ingest adds judges.
 */
import type { HcJudgeProfile } from '../../corpus/hc-judges.ts';
import { resolveCourt } from '../../reference/reference-data.ts';
import type { Clock } from '../../ports/clock.ts';
import type { StoredBench } from '../../ports/stored-benches.ts';

export interface JudgeCourt {
  /** The court filter value of search (a /reference/courts id), when the court is known there. */
  readonly id: string | null;
  readonly name: string;
}

export interface JudgeEntry {
  /** Exact stored spelling: the value judgeName filters accept. */
  readonly name: string;
  readonly courts: readonly JudgeCourt[];
  /** Appointment to retirement from KHOJ, else the span of decisions held. */
  readonly tenure: { readonly from: string | null; readonly to: string | null; readonly basis: 'appointment' | 'decisions' } | null;
  /** Cases in the store naming this spelling on the bench. */
  readonly cases: number;
}

export interface JudgeDirectoryDeps {
  readonly storedBenches: () => Promise<StoredBench[]>;
  readonly profiles: () => Promise<HcJudgeProfile[]>;
  readonly clock: Clock;
  readonly ttlMs?: number;
}

export const MAX_JUDGE_RESULTS = 50;
const DEFAULT_TTL_MS = 10 * 60_000;

/** Name key for joining spellings across sources: upper case, no honorifics or punctuation. */
export function judgeKey(name: string): string {
  return name
    .toUpperCase()
    .replace(/\bHON'?BLE\b|\bTHE\b|\bMRS?\b\.?|\bMS\b\.?|\bDR\b\.?|\bJUSTICE\b/g, ' ')
    .replace(/[^A-Z ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function khojCourt(name: string): JudgeCourt {
  const court = resolveCourt(`${name} High Court`) ?? resolveCourt(`High Court of ${name}`);
  return court ? { id: court.id, name: court.name } : { id: null, name: `${name} High Court` };
}

function storedCourt(name: string): JudgeCourt {
  const court = resolveCourt(name);
  return court ? { id: court.id, name: court.name } : { id: null, name };
}

function build(benches: readonly StoredBench[], profiles: readonly HcJudgeProfile[]): JudgeEntry[] {
  const byName = new Map<string, { courts: Map<string, JudgeCourt>; from: string | null; to: string | null; cases: number }>();
  for (const b of benches) {
    const entry = byName.get(b.name) ?? { courts: new Map(), from: null, to: null, cases: 0 };
    const court = storedCourt(b.courtName);
    entry.courts.set(court.id ?? court.name, court);
    if (b.firstDecision !== null && (entry.from === null || b.firstDecision < entry.from)) entry.from = b.firstDecision;
    if (b.lastDecision !== null && (entry.to === null || b.lastDecision > entry.to)) entry.to = b.lastDecision;
    entry.cases += b.cases;
    byName.set(b.name, entry);
  }
  const profileByKey = new Map(profiles.map((p) => [judgeKey(p.name), p]));
  const matchedProfiles = new Set<string>();
  const entries: JudgeEntry[] = [...byName].map(([name, e]) => {
    const key = judgeKey(name);
    const profile = profileByKey.get(key);
    const courts = [...e.courts.values()];
    if (!profile) return { name, courts, tenure: e.from || e.to ? { from: e.from, to: e.to, basis: 'decisions' } : null, cases: e.cases };
    matchedProfiles.add(key);
    for (const c of profile.highCourts.map(khojCourt)) if (!courts.some((k) => k.id === c.id && k.name === c.name)) courts.push(c);
    return { name, courts, tenure: { from: profile.appointed, to: profile.retires, basis: 'appointment' }, cases: e.cases };
  });
  for (const [key, p] of profileByKey) {
    if (matchedProfiles.has(key)) continue;
    entries.push({
      name: p.name,
      courts: p.highCourts.map(khojCourt),
      tenure: { from: p.appointed, to: p.retires, basis: 'appointment' },
      cases: 0,
    });
  }
  return entries.sort((a, b) => a.name.localeCompare(b.name, 'en') || (a.name < b.name ? -1 : 1));
}

/** Exact, then prefix, then inner substring; within each, more cases first, then by name. */
function rank(query: string, entry: JudgeEntry): number {
  const name = entry.name.toLowerCase();
  if (name === query) return 0;
  return name.startsWith(query) ? 1 : 2;
}

/** An entry with its match keys worked out once, not on every lookup. */
interface Indexed {
  readonly entry: JudgeEntry;
  readonly lower: string;
  readonly loose: string;
}

export class JudgeDirectory {
  #entries: Indexed[] | undefined;
  #builtAt = 0;
  #building: Promise<Indexed[]> | undefined;

  constructor(private readonly deps: JudgeDirectoryDeps) {}

  /** Case-insensitive substring match on the spelling (or on it without punctuation); at most 50. */
  async search(q: string | undefined): Promise<{ judges: JudgeEntry[]; total: number }> {
    const all = await this.#all();
    const query = q?.trim().toLowerCase() ?? '';
    if (query === '') return { judges: all.slice(0, MAX_JUDGE_RESULTS).map((i) => i.entry), total: all.length };
    const loose = judgeKey(query).toLowerCase();
    const matches = all.filter((i) => i.lower.includes(query) || (loose !== '' && i.loose.includes(loose))).map((i) => i.entry);
    matches.sort((a, b) => rank(query, a) - rank(query, b) || b.cases - a.cases || a.name.localeCompare(b.name, 'en'));
    return { judges: matches.slice(0, MAX_JUDGE_RESULTS), total: matches.length };
  }

  async #all(): Promise<Indexed[]> {
    const fresh = this.deps.clock.now().getTime() - this.#builtAt < (this.deps.ttlMs ?? DEFAULT_TTL_MS);
    if (this.#entries && fresh) return this.#entries;
    this.#building ??= Promise.all([this.deps.storedBenches(), this.deps.profiles()])
      .then(([benches, profiles]) => {
        this.#entries = build(benches, profiles).map((entry) => ({
          entry,
          lower: entry.name.toLowerCase(),
          loose: judgeKey(entry.name).toLowerCase(),
        }));
        this.#builtAt = this.deps.clock.now().getTime();
        return this.#entries;
      })
      .finally(() => {
        this.#building = undefined;
      });
    return this.#building;
  }
}
