/**
 * The filter fields both search routes take (court, case type, judge, year, case number),
 * with the limits of search-filters.ts (FILTER_LIMITS) written into the schema, so the
 * OpenAPI document states each string's maxLength and each list's maxItems and the schema
 * refuses exactly what the document says. The one limit a schema cannot state, courts
 * counted after a string is split on commas, the filter resolution enforces, and each
 * court description says so.
 */
import { z } from '@hono/zod-openapi';
import { FILTER_LIMITS, type LimitedFilter } from '../../../application/search/search-filters.ts';

/** One value of a filter, at most the filter's length. */
const filterText = (filter: LimitedFilter) => z.string().max(FILTER_LIMITS[filter].length);

/** One value, or a list of at most the filter's number of values. */
export const oneOrMany = (filter: LimitedFilter) =>
  z.union([filterText(filter), z.array(filterText(filter)).max(FILTER_LIMITS[filter].values)]);

/** Years as JSON numbers or strings, alone or in a list. */
export const years = () =>
  z.union([z.number(), filterText('year'), z.array(z.union([z.number(), filterText('year')])).max(FILTER_LIMITS.year.values)]);

/** The limits of one filter in words, for its description. */
export function limitsOf(filter: LimitedFilter): string {
  const { values, length } = FILTER_LIMITS[filter];
  return filter === 'court'
    ? `At most ${values} courts in all, the parts of a comma-separated string counted one by one; each string at most ${length} characters.`
    : `At most ${values} values, each at most ${length} characters.`;
}
