/** Entry point for drizzle-kit: every table of the Postgres schema. */
export * from './event-store.ts';
export * from './cases.ts';
export * from './accounts.ts';
export * from './credits.ts';
export * from './search.ts';
export * from './vectors.ts';
export * from './analysis.ts';
export * from './timeline.ts';
export * from './webhooks.ts';
