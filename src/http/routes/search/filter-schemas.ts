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

/** meta.restrictedCheckDegraded, as both search routes document it. */
export const RESTRICTED_CHECK_DEGRADED =
  'Every page of hits is checked against the case store for restrictions made since the index was last fed; a case restricted since is left out and counted in someRecordsWithheld. ' +
  'true: that check failed or timed out, and the page was answered anyway with every result masked: title null, parties empty (names and advocates); ' +
  'identifiers, court, bench, judges, dates and citations stay, and GET /cases/:id checks restriction itself. ' +
  'A degraded page is not charged (X-Credits-Charged: 0) and is not stored for Idempotency-Key replay (Cache-Control: no-store): retry it for the unmasked page.';
