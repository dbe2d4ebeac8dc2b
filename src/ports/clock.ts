/** Nondeterminism arrives through these, so the domain and workflows stay replayable. */
export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  next(): string;
}

export const systemClock: Clock = { now: () => new Date() };

export const randomIds: IdGenerator = { next: () => crypto.randomUUID() };
