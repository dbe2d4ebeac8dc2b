/**
 * The client: one method per API operation, named by its operationId and typed from the
 * OpenAPI document (`client.searchCases({ body })`, `client.getCase({ params: { path: { id } } })`),
 * over openapi-fetch. A method resolves with the 2xx body and the headers clients read, and
 * throws `CourtRecordsError` (typed by code) for every documented refusal. `client.raw` is
 * the underlying openapi-fetch client for path-based calls.
 */
import createClient, { type Client, type MaybeOptionalInit } from 'openapi-fetch';
import { CourtRecordsConnectionError, errorFromResponse } from './errors.ts';
import type { operations, paths } from './generated/schema.ts';
import { OPERATIONS } from './generated/operations.ts';
import { decryptPdfLink } from './pdf-link.ts';
import { DEFAULT_RETRY_POLICY, defaultRetryEnvironment, resilientFetch, type RetryEnvironment, type RetryPolicy } from './retry.ts';

export type OperationId = keyof typeof OPERATIONS;
type Route<K extends OperationId> = (typeof OPERATIONS)[K];
type PathItem<K extends OperationId> = paths[Route<K>['path']];

/** What a method takes: openapi-fetch's init for the operation (params.path, params.query, params.header, body). */
export type OperationInit<K extends OperationId> = MaybeOptionalInit<PathItem<K>, Route<K>['method']>;

type SuccessStatus = 200 | 201 | 202;
type SuccessContent<O> = O extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: R[S] extends { content: infer C } ? C : never }[keyof R & SuccessStatus]
  : never;

/** The 2xx body: the JSON schema's type, or the bytes of a document. */
export type OperationBody<K extends OperationId> = SuccessContent<operations[K]> extends { 'application/json': infer J } ? J : Uint8Array;

export interface ApiResult<T> {
  readonly body: T;
  readonly status: number;
  readonly requestId: string | undefined;
  /** Credits this call charged (X-Credits-Charged), on keyed calls. */
  readonly creditsCharged: number | undefined;
  /** The account's balance after the call (X-Credits-Remaining), on keyed calls. */
  readonly creditsRemaining: number | undefined;
  /** True when the server replayed the stored answer of an earlier call with the same Idempotency-Key. */
  readonly replayed: boolean;
}

type InitArgs<K extends OperationId> = undefined extends OperationInit<K> ? [init?: OperationInit<K>] : [init: OperationInit<K>];

export type OperationMethods = { readonly [K in OperationId]: (...init: InitArgs<K>) => Promise<ApiResult<OperationBody<K>>> };

export interface CourtRecordsOptions {
  /** The API root, e.g. https://api.example.com/api/v1/prod */
  readonly baseUrl: string;
  /** Sent as X-API-Key. Optional: the public routes need none. */
  readonly apiKey?: string;
  readonly retry?: Partial<RetryPolicy>;
  /** Replaces fetch, the clock, sleeping, jitter or key generation (tests, custom transports). */
  readonly environment?: Partial<RetryEnvironment>;
}

export type CourtRecordsClient = OperationMethods & {
  readonly raw: Client<paths>;
  /** The plain presigned URL of a case's judgment PDF (getCasePdf, decrypted) and when it expires. */
  readonly casePdfUrl: (
    caseId: string,
  ) => Promise<{ readonly url: string; readonly expiresAt: string; readonly result: ApiResult<OperationBody<'getCasePdf'>> }>;
};

function headerNumber(response: Response, name: string): number | undefined {
  const value = response.headers.get(name);
  return value === null || value.trim() === '' || Number.isNaN(Number(value)) ? undefined : Number(value);
}

async function readBody(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (/\bjson\b/i.test(type)) return response.json();
  return new Uint8Array(await response.arrayBuffer());
}

export function createCourtRecordsClient(options: CourtRecordsOptions): CourtRecordsClient {
  const environment = { ...defaultRetryEnvironment, ...options.environment };
  const raw = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: options.apiKey === undefined ? {} : { 'X-API-Key': options.apiKey },
    fetch: resilientFetch({ ...DEFAULT_RETRY_POLICY, ...options.retry }, environment),
  });

  async function call(operationId: OperationId, init: unknown): Promise<ApiResult<unknown>> {
    const route = OPERATIONS[operationId];
    // The typed surface is OperationMethods; here the route is only known at run time.
    const request = raw.request as (method: string, path: string, init: object) => ReturnType<Client<paths>['GET']>;
    const { response, error } = await request(route.method, route.path, { ...(init ?? {}), parseAs: 'stream' });
    if (!response.ok) throw errorFromResponse(response, error);
    let body: unknown;
    try {
      body = await readBody(response);
    } catch (cause) {
      throw new CourtRecordsConnectionError(`${operationId}: the answer could not be read`, response.status, { cause });
    }
    return {
      body,
      status: response.status,
      requestId: response.headers.get('x-request-id') ?? undefined,
      creditsCharged: headerNumber(response, 'x-credits-charged'),
      creditsRemaining: headerNumber(response, 'x-credits-remaining'),
      replayed: response.headers.get('idempotency-replayed') === 'true',
    };
  }

  const methods = Object.fromEntries(
    (Object.keys(OPERATIONS) as OperationId[]).map((operationId) => [operationId, (init?: unknown) => call(operationId, init)]),
  ) as unknown as OperationMethods;

  return {
    ...methods,
    raw,
    casePdfUrl: async (caseId) => {
      const result = await methods.getCasePdf({ params: { path: { id: caseId } } });
      return { url: await decryptPdfLink(result.body.data), expiresAt: result.body.meta.expiresAt, result };
    },
  };
}
