/** The success envelope every enveloped route answers with, as a schema for its OpenAPI docs. */
import { z } from '@hono/zod-openapi';

export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}
