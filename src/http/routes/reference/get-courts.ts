/** GET /reference/courts: the court hierarchy the search court filter accepts. */
import { courtsReference } from '../../../reference/reference-data.ts';
import { CourtsReferenceSchema } from '../../../reference/schemas.ts';
import { referenceRoute } from './reference-route-support.ts';

export const registerGetCourts = referenceRoute({
  operationId: 'listCourts',
  path: '/reference/courts',
  summary: 'Court hierarchy accepted by the court filter',
  description: 'The Supreme Court, every High Court with its benches, the district courts (one node) and the main tribunals.',
  schema: CourtsReferenceSchema,
  load: courtsReference,
});
