/**
 * The resource namespaces, stripe-node style: one object per resource, one method per
 * thing a caller does with it, each a line over `send` and an operationId of the OpenAPI
 * document, so its argument and result types are the document's. A new resource is a new
 * entry here; a new list gets its `…AutoPaginate` from `autoPaginate` (pagination.ts).
 */
import type { OperationBody, OperationQuery, OperationRequestBody, RequestOptions, Send, WithResponse } from './client.ts';
import { decryptPdfLink } from './pdf-link.ts';
import { autoPaginate, type AutoPaginateOptions } from './pagination.ts';

type Result<K extends Parameters<Send>[0]> = Promise<WithResponse<OperationBody<K>>>;
type Item<K extends Parameters<Send>[0]> = OperationBody<K> extends { data: readonly (infer T)[] } ? T : never;
type AuditItem = OperationBody<'listAuditEvents'> extends { data: { rows: readonly (infer T)[] } } ? T : never;

export function createResources(send: Send) {
  const pathId = (id: string) => ({ params: { path: { id } } });
  return {
    cases: {
      /** GET /cases/{id}: the full record (a case number in any printed form also works). */
      get: (id: string, options?: RequestOptions): Result<'getCase'> => send('getCase', pathId(id), options),
      /** GET /cases/{id}/pdf: the encrypted link to the judgment (see pdfUrl for the plain one). */
      pdf: (id: string, options?: RequestOptions): Result<'getCasePdf'> => send('getCasePdf', pathId(id), options),
      /** The plain presigned URL of the judgment PDF, decrypted, and when it expires. */
      pdfUrl: async (id: string, options?: RequestOptions): Promise<WithResponse<{ url: string; expiresAt: string }>> => {
        const link = await send('getCasePdf', pathId(id), options);
        const plain = { url: await decryptPdfLink(link.data), expiresAt: link.meta.expiresAt };
        Object.defineProperty(plain, 'lastResponse', { value: link.lastResponse, enumerable: false });
        return plain as WithResponse<typeof plain>;
      },
    },
    search: {
      /** POST /search/cases: one page of keyword search. */
      cases: (body: OperationRequestBody<'searchCases'>, options?: RequestOptions): Result<'searchCases'> =>
        send('searchCases', { body }, options),
      /** Every hit of a keyword search, page after page by `pagination.nextCursor` (each page a charged call). */
      casesAutoPaginate: (body: OperationRequestBody<'searchCases'>, options?: AutoPaginateOptions) =>
        autoPaginate<WithResponse<OperationBody<'searchCases'>>, Item<'searchCases'>>(
          () => send('searchCases', { body }, options),
          (page) => {
            const cursor = page.pagination.nextCursor;
            if (!page.pagination.hasMore || cursor === null) return undefined;
            const { page: _page, ...rest } = body;
            return () => send('searchCases', { body: { ...rest, searchAfter: cursor } }, options);
          },
          (page) => page.data,
        ),
      /** POST /search/cases/semantic: one page of meaning-based search. */
      semantic: (body: OperationRequestBody<'searchCasesSemantic'>, options?: RequestOptions): Result<'searchCasesSemantic'> =>
        send('searchCasesSemantic', { body }, options),
      /** Every hit of a semantic search, page after page up to the tier's depth (each page a charged call). */
      semanticAutoPaginate: (body: OperationRequestBody<'searchCasesSemantic'>, options?: AutoPaginateOptions) =>
        autoPaginate<WithResponse<OperationBody<'searchCasesSemantic'>>, Item<'searchCasesSemantic'>>(
          () => send('searchCasesSemantic', { body }, options),
          (page) =>
            page.pagination.hasMore
              ? () => send('searchCasesSemantic', { body: { ...body, page: page.pagination.page + 1 } }, options)
              : undefined,
          (page) => page.data,
        ),
    },
    analysis: {
      /** POST /cases/{id}/analyze: starts an analysis (202, collect it with waitForAnalysis) or returns the stored one. */
      create: (caseId: string, body?: OperationRequestBody<'analyzeCase'>, options?: RequestOptions): Result<'analyzeCase'> =>
        send('analyzeCase', { ...pathId(caseId), ...(body === undefined ? {} : { body }) }, options),
      /** GET /cases/{id}/analysis: the stored analysis, or hasAnalysis false with your latest run. */
      get: (caseId: string, options?: RequestOptions): Result<'getCaseAnalysis'> => send('getCaseAnalysis', pathId(caseId), options),
      /** POST /cases/{id}/analyze-consolidated: answers when stored (may take minutes; the default timeout allows for it). */
      createConsolidated: (
        caseId: string,
        body?: OperationRequestBody<'analyzeCaseConsolidated'>,
        options?: RequestOptions,
      ): Result<'analyzeCaseConsolidated'> =>
        send('analyzeCaseConsolidated', { ...pathId(caseId), ...(body === undefined ? {} : { body }) }, options),
    },
    party: {
      /** POST /party/screen: a litigation check of one party. */
      screen: (body: OperationRequestBody<'screenParty'>, options?: RequestOptions): Result<'screenParty'> =>
        send('screenParty', { body }, options),
      /** POST /party/screen/batch: several parties in one call. */
      screenBatch: (body: OperationRequestBody<'screenPartyBatch'>, options?: RequestOptions): Result<'screenPartyBatch'> =>
        send('screenPartyBatch', { body }, options),
    },
    timeline: {
      /** POST /request-timeline: a case's hearing timeline, from the store or live (202 with a job; see waitForTimeline). */
      request: (body: OperationRequestBody<'requestTimeline'>, options?: RequestOptions): Result<'requestTimeline'> =>
        send('requestTimeline', { body }, options),
      /** GET /request-timeline/{requestId}: the job as it stands. */
      get: (requestId: string, options?: RequestOptions): Result<'getTimelineRequest'> =>
        send('getTimelineRequest', { params: { path: { requestId } } }, options),
    },
    judges: {
      /** GET /judges/search: judges by name, with the exact spellings search filters take. */
      search: (query?: OperationQuery<'searchJudges'>, options?: RequestOptions): Result<'searchJudges'> =>
        send('searchJudges', query === undefined ? undefined : { params: { query } }, options),
    },
    reference: {
      /** GET /reference/courts */
      courts: (options?: RequestOptions): Result<'listCourts'> => send('listCourts', undefined, options),
      /** GET /reference/case-types */
      caseTypes: (options?: RequestOptions): Result<'listCaseTypes'> => send('listCaseTypes', undefined, options),
      /** GET /coverage: what the corpus holds, per court and year. */
      coverage: (query?: OperationQuery<'getCoverage'>, options?: RequestOptions): Result<'getCoverage'> =>
        send('getCoverage', query === undefined ? undefined : { params: { query } }, options),
    },
    account: {
      /** GET /me: the key's account, tier and limits. */
      me: (options?: RequestOptions): Result<'getMe'> => send('getMe', undefined, options),
      /** GET /usage: balance, this period's calls and credits per endpoint, and the price list. */
      usage: (options?: RequestOptions): Result<'getUsage'> => send('getUsage', undefined, options),
      /** GET /audit: one page of the account's call log. */
      audit: (query?: OperationQuery<'listAuditEvents'>, options?: RequestOptions): Result<'listAuditEvents'> =>
        send('listAuditEvents', query === undefined ? undefined : { params: { query } }, options),
      /** Every call-log row, page after page by offset. */
      auditAutoPaginate: (query: OperationQuery<'listAuditEvents'> = {}, options?: AutoPaginateOptions) =>
        autoPaginate<WithResponse<OperationBody<'listAuditEvents'>>, AuditItem>(
          () => send('listAuditEvents', { params: { query } }, options),
          (page) => {
            const next = page.pagination.offset + page.data.rows.length;
            return page.data.rows.length > 0 && next < page.pagination.total
              ? () => send('listAuditEvents', { params: { query: { ...query, offset: next } } }, options)
              : undefined;
          },
          (page) => page.data.rows,
        ),
    },
    events: {
      /** GET /events: one page of the account's events, newest first unless `order: 'asc'`. */
      list: (query?: OperationQuery<'listEvents'>, options?: RequestOptions): Result<'listEvents'> =>
        send('listEvents', query === undefined ? undefined : { params: { query } }, options),
      /** GET /events/{id}: one event, as its webhook delivered it. */
      get: (id: string, options?: RequestOptions): Result<'getEvent'> => send('getEvent', pathId(id), options),
      /**
       * Every event matching the query, page after page by `startingAfter` (free): with
       * `order: 'asc'` and the last id a receiver saw, what it missed while it was down.
       */
      listAutoPaginate: (query: OperationQuery<'listEvents'> = {}, options?: AutoPaginateOptions) =>
        autoPaginate<WithResponse<OperationBody<'listEvents'>>, Item<'listEvents'>>(
          () => send('listEvents', { params: { query } }, options),
          (page) => {
            const cursor = page.pagination.nextCursor;
            if (!page.pagination.hasMore || cursor === null) return undefined;
            return () => send('listEvents', { params: { query: { ...query, startingAfter: cursor } } }, options);
          },
          (page) => page.data,
        ),
    },
    webhookEndpoints: {
      /** GET /webhooks/endpoints: the account's endpoints in the key's mode. */
      list: (options?: RequestOptions): Result<'listWebhookEndpointsWithKey'> => send('listWebhookEndpointsWithKey', undefined, options),
      /** POST /webhooks/endpoints: the answer holds the signing secret, shown this once. */
      create: (
        body: OperationRequestBody<'createWebhookEndpointWithKey'>,
        options?: RequestOptions,
      ): Result<'createWebhookEndpointWithKey'> => send('createWebhookEndpointWithKey', { body }, options),
      delete: (id: string, options?: RequestOptions): Result<'deleteWebhookEndpointWithKey'> =>
        send('deleteWebhookEndpointWithKey', pathId(id), options),
      /** Turns an endpoint disabled after repeated failures back on. */
      enable: (id: string, options?: RequestOptions): Result<'enableWebhookEndpointWithKey'> =>
        send('enableWebhookEndpointWithKey', pathId(id), options),
      rotateSecret: (id: string, options?: RequestOptions): Result<'rotateWebhookSecretWithKey'> =>
        send('rotateWebhookSecretWithKey', pathId(id), options),
      deliveries: (id: string, query?: OperationQuery<'listWebhookDeliveriesWithKey'>, options?: RequestOptions) =>
        send('listWebhookDeliveriesWithKey', { params: { path: { id }, ...(query === undefined ? {} : { query }) } }, options),
      /** POST /webhooks/endpoints/{id}/test: a sample event of the type, delivered and signed like a real one. */
      sendTest: (
        id: string,
        body?: OperationRequestBody<'sendTestWebhookEventWithKey'>,
        options?: RequestOptions,
      ): Result<'sendTestWebhookEventWithKey'> =>
        send('sendTestWebhookEventWithKey', { ...pathId(id), ...(body === undefined ? {} : { body }) }, options),
      /** POST /webhooks/deliveries/{id}/resend: the same event again, as a new delivery. */
      resend: (deliveryId: string, options?: RequestOptions): Result<'resendWebhookDeliveryWithKey'> =>
        send('resendWebhookDeliveryWithKey', pathId(deliveryId), options),
    },
    health: {
      /** GET /health: whether the service answers (deep: its dependencies too, for the operator). */
      check: (query?: OperationQuery<'getHealth'>, options?: RequestOptions): Result<'getHealth'> =>
        send('getHealth', query === undefined ? undefined : { params: { query } }, options),
    },
  };
}

export type Resources = ReturnType<typeof createResources>;
