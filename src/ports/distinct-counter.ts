/** Counts distinct members of a set that expires, e.g. distinct keys one address used today. */
export interface DistinctCounter {
  /** Adds the member and returns how many distinct members the set now holds. */
  add(set: string, member: string, ttlSeconds: number): Promise<{ size: number; isNew: boolean }>;
  /** Takes a member back out, e.g. one that was refused for exceeding the cap. */
  remove(set: string, member: string): Promise<void>;
}
