/**
 * GET /documents/{folder}/{name}: downloads a stored document through a link the service
 * signed (the local folder's stand-in for an S3 presigned URL). Public: the signature over
 * key and expiry is the credential. A bad signature is refused before the expiry is even
 * considered, so a forged expiry never reads as merely "expired"; errors never name a path.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Clock } from '../../../ports/clock.ts';
import type { DocumentLinkVerifier, DocumentStorage } from '../../../ports/document-storage.ts';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';

export interface GetDocumentDeps {
  readonly links: DocumentLinkVerifier;
  readonly documents: Pick<DocumentStorage, 'get'>;
  readonly clock: Clock;
}

const route = createRoute({
  operationId: 'getDocument',
  security: [],
  method: 'get',
  path: '/documents/{folder}/{name}',
  tags: ['Public'],
  summary: 'Download a stored document through a signed, expiring link',
  description: 'The links come from GET /cases/{id}/pdf (decrypt pdfUrl); they are valid for one hour and need no API key.',
  request: {
    params: z.object({
      folder: z.string().openapi({ example: 'judgments' }),
      name: z.string().openapi({ example: 'sc-ik-1117226.pdf' }),
    }),
    query: z.object({
      expires: z.string().optional().openapi({ description: 'Unix time (seconds) the link stops working.', example: '1796083200' }),
      signature: z.string().optional().openapi({ description: 'Hex HMAC-SHA256 over the key and expires.' }),
    }),
  },
  responses: {
    200: {
      description: 'The document.',
      headers: {
        'Content-Disposition': { schema: { type: 'string', example: 'inline; filename="sc-ik-1117226.pdf"' } },
        'Cache-Control': { schema: { type: 'string', example: 'private, max-age=3541' } },
      },
      content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } },
    },
    ...errorResponses('DOCUMENT_LINK_INVALID', 'DOCUMENT_LINK_EXPIRED', 'DOCUMENT_NOT_FOUND'),
  },
});

/** A name safe to put in a header whatever the key holds. */
function downloadName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

export function registerGetDocument(app: App, deps: GetDocumentDeps): void {
  app.openapi(route, async (c) => {
    const { folder, name } = c.req.valid('param');
    const { expires, signature } = c.req.valid('query');
    const key = `${folder}/${name}`;
    const expiresAt = expires !== undefined && /^\d{1,12}$/.test(expires) ? Number(expires) : null;
    const verdict = expiresAt !== null && signature !== undefined ? deps.links.check(key, expiresAt, signature) : 'invalid';
    if (verdict === 'invalid') throw new ApiError('DOCUMENT_LINK_INVALID');
    if (verdict === 'expired') throw new ApiError('DOCUMENT_LINK_EXPIRED');
    const bytes = await deps.documents.get(key);
    if (!bytes) throw new ApiError('DOCUMENT_NOT_FOUND');
    const remaining = Math.max(0, (expiresAt ?? 0) - Math.floor(deps.clock.now().getTime() / 1000));
    return c.body(new Uint8Array(bytes), 200, {
      'Content-Type': name.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream',
      'Content-Disposition': `inline; filename="${downloadName(name)}"`,
      'Cache-Control': `private, max-age=${remaining}`,
      'X-Content-Type-Options': 'nosniff',
      // The signature travels in the query string; keep it out of Referer headers.
      'Referrer-Policy': 'no-referrer',
    });
  });
}
