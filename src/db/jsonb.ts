/**
 * A jsonb parameter that reads the same on postgres.js and PGlite: the value goes over as
 * text and is cast in SQL. (Passed raw, postgres.js would store a string as a JSON string
 * and a driver may send an array as a Postgres array.)
 */
import { sql, type RawBuilder } from 'kysely';

export function jsonb(value: unknown): RawBuilder<unknown> {
  return sql`${JSON.stringify(value)}::text::jsonb`;
}
