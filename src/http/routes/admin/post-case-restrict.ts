/**
 * POST /admin/cases/{caseId}/restrict: withholds a case under the removal policy. The
 * restriction is recorded as an event (actor and time) and the case row flagged in the
 * same transaction; restricting an already restricted case succeeds and records nothing.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { CaseRestrictionService } from '../../../application/cases/case-restriction-service.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY, CaseParams } from './schemas.ts';
import { envelope } from '../../envelope.ts';

const Restricted = envelope(z.object({ caseId: z.string(), restricted: z.literal(true) })).openapi('AdminCaseRestricted');

const route = createRoute({
  operationId: 'adminRestrictCase',
  method: 'post',
  path: '/admin/cases/{caseId}/restrict',
  tags: ['Admin'],
  summary: 'Restrict a case under the removal policy',
  security: ADMIN_SECURITY,
  request: { params: CaseParams },
  responses: {
    200: { description: 'Restricted (or already was).', content: { 'application/json': { schema: Restricted } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'CASE_NOT_FOUND', 'VALIDATION_ERROR'),
  },
});

export function registerPostCaseRestrict(app: App, cases: CaseRestrictionService): void {
  app.openapi(route, async (c) => {
    const { caseId } = c.req.valid('param');
    const result = await cases.restrict(caseId, { kind: 'operator' }, c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: result.value }, 200);
  });
}
