/**
 * GET /cases/:id/pdf: a one-hour link to the judgment PDF, encrypted per the spec's
 * decryption contract (AES-256-CBC under SHA-256 of caseId + caseNumber, "<hex IV>:<hex
 * ciphertext>"). 5 credits, charged only when a link is handed out. A case with no stored
 * document is PDF_NOT_STORED with a hint that depends on its court; the tier's monthly PDF
 * cap is PDF_LIMIT_REACHED with Retry-After until the month turns.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { encryptPdfLink } from '../../pdf-link-cipher.ts';
import type { CaseReader } from '../../../application/cases/case-reader.ts';
import type { CourtLevel } from '../../../domain/case/case-record.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import type { Clock } from '../../../ports/clock.ts';
import { DOCUMENT_LINK_TTL_SECONDS, judgmentKey, type DocumentStorage } from '../../../ports/document-storage.ts';
import { ApiError } from '../../api-error.ts';
import { admitted, type PricedRouteDeps } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { CaseIdParam, lookupCase } from './case-support.ts';

export interface CasePdfDeps extends PricedRouteDeps {
  readonly cases: CaseReader;
  readonly documents: DocumentStorage;
  readonly clock: Clock;
}

const HINTS: Record<CourtLevel, string> = {
  high: 'High Court documents can be fetched live: POST /request-timeline with refresh true, then retry.',
  district: 'District Court documents can be fetched live: POST /request-timeline with refresh true, then retry.',
  tribunal: 'Tribunal documents cannot be fetched through /request-timeline.',
  supreme: 'This Supreme Court record is registry metadata with no judgment document on file.',
};

const PdfLink = z
  .object({
    caseId: z.string().openapi({ description: 'First half of the decryption passphrase.' }),
    caseNumber: z.string().openapi({ description: 'Second half of the decryption passphrase.' }),
    pdfUrl: z.string().openapi({
      example: '9f86d081884c7d659a2feaa0c55ad015:3a1f…',
      description:
        'Encrypted presigned URL valid for one hour: hex IV, a colon, hex ciphertext. AES-256-CBC; key = SHA-256(caseId + caseNumber); plaintext UTF-8.',
    }),
  })
  .openapi('PdfLink');

const Response = z
  .object({
    success: z.literal(true),
    data: PdfLink,
    meta: z.object({ expiresAt: z.string().openapi({ description: 'When the link stops working (ISO 8601).' }) }),
  })
  .openapi('PdfLinkResponse');

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'getCasePdf',
    method: 'get',
    path: '/cases/{id}/pdf',
    tags: ['Cases'],
    summary: 'Encrypted one-hour link to the judgment PDF',
    description: `Price: ${describePrice('pdfLink')} Not charged when it fails.`,
    security: keyedSecurity,
    middleware: [auth] as const,
    request: { params: CaseIdParam },
    responses: {
      200: { description: 'The encrypted link.', content: { 'application/json': { schema: Response } } },
      ...errorResponses(
        ...KEYED_ERRORS,
        'VALIDATION_ERROR',
        'CASE_NOT_FOUND',
        'PDF_NOT_STORED',
        'CASE_RESTRICTED',
        'PDF_LIMIT_REACHED',
        'INSUFFICIENT_API_CREDITS',
        'UPSTREAM_UNAVAILABLE',
      ),
    },
  });

export function registerGetCasePdf(app: App, auth: MiddlewareHandler<AppEnv>, deps: CasePdfDeps): void {
  app.openapi(route(auth), async (c) => {
    const principal = principalOf(c);
    const { caseId, caseNumber, court } = (await lookupCase(deps.cases, c.req.valid('param').id)).found;
    const key = judgmentKey(caseId);
    const stored = await deps.documents.exists(key).catch((error: unknown) => {
      throw new ApiError('UPSTREAM_UNAVAILABLE', { message: 'Document storage did not respond; nothing was charged.', cause: error });
    });
    if (!stored) throw new ApiError('PDF_NOT_STORED', { extra: { hint: HINTS[court.level] } });

    const result = await deps.admission.run({
      payer: principal,
      callId: c.get('callId'),
      endpoint: 'pdfLink',
      cap: { cap: 'pdfLinksPerMonth' },
      work: () => deps.documents.signedUrl(key, DOCUMENT_LINK_TTL_SECONDS),
    });
    const pdfUrl = encryptPdfLink(admitted(c, result, deps.links).value, caseId, caseNumber);
    const expiresAt = new Date(deps.clock.now().getTime() + DOCUMENT_LINK_TTL_SECONDS * 1000).toISOString();
    return c.json({ success: true as const, data: { caseId, caseNumber, pdfUrl }, meta: { expiresAt } }, 200);
  });
}
