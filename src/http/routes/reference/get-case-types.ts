/** GET /reference/case-types: the taxonomy the caseType filter accepts; a label expands to its codes. */
import { caseTypesReference } from '../../../reference/reference-data.ts';
import { CaseTypesReferenceSchema } from '../../../reference/schemas.ts';
import { referenceRoute } from './reference-route-support.ts';

export const registerGetCaseTypes = referenceRoute({
  operationId: 'listCaseTypes',
  path: '/reference/case-types',
  summary: 'Case-type taxonomy accepted by the caseType filter',
  description: 'Each label with every code it expands to, and the courts that use them.',
  schema: CaseTypesReferenceSchema,
  load: caseTypesReference,
});
