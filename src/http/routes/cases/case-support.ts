/**
 * What the case routes share: the :id path parameter and its lookup, which answers a
 * missing or restricted case with the spec's errors before any route does its work.
 */
import { z } from '@hono/zod-openapi';
import type { CaseReader, CaseView, SiblingDocument } from '../../../application/cases/case-reader.ts';
import { ApiError } from '../../api-error.ts';

export const CaseIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(300)
    .openapi({
      param: { name: 'id', in: 'path' },
      example: 'sc-inabs-5861',
      description: 'A document id, or a case number in any printed form (URL-encoded), e.g. "Civil Appeal No. 56 of 1987".',
    }),
});

/** The case an :id names, or the spec's 404 CASE_NOT_FOUND / 403 CASE_RESTRICTED. */
export async function lookupCase(cases: CaseReader, id: string): Promise<{ found: CaseView; siblings: readonly SiblingDocument[] }> {
  const lookup = await cases.lookup(id);
  if ('missing' in lookup) throw new ApiError(lookup.missing === 'Restricted' ? 'CASE_RESTRICTED' : 'CASE_NOT_FOUND');
  return lookup;
}
