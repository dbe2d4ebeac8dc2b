/**
 * The client. Resource namespaces (`client.cases.get(id)`, `client.search.cases({ query })`,
 * `client.analysis.create(id)`, …; see resources.ts) resolve with the answer's JSON body as
 * the OpenAPI document types it, plus a non-enumerable `lastResponse` (status, request id,
 * credits, replay flag and the Idempotency-Key the call was sent with), as stripe-node
 * does: the body prints and serialises as the server sent it. Under them, one method per
 * operationId (`client.searchCases({ body })`) resolves with an `ApiResult` wrapper.
 *
 * Every call takes per-call options: `timeout` (per attempt), `signal`, `idempotencyKey`
 * and `maxRetries`. A POST is always sent with an Idempotency-Key (the caller's or a
 * generated one) that every retry reuses; the key is on every result and every error, so
 * a caller who gives up can retry later with it and be charged once. Refusals throw
 * `CourtRecordsError` subclasses, also the ones the server answers in band under HTTP 200
 * with `success: false`.
 */
import { codedError, CourtRecordsConnectionError, errorFromResponse, inBandRefusal, retryAfterSeconds } from './errors.ts';
import type { operations } from './generated/schema.ts';
import { OPERATIONS } from './generated/operations.ts';
import { decryptPdfLink } from './pdf-link.ts';
import { createResources, type Resources } from './resources.ts';
import { DEFAULT_RETRY_POLICY, defaultRetryEnvironment, resilientFetch, type RetryEnvironment, type RetryPolicy } from './retry.ts';
import { DEFAULT_TIMEOUT_MS, OPERATION_TIMEOUTS_MS } from './timeouts.ts';
import { userAgent } from './user-agent.ts';
import { createWaiters, type Waiters } from './wait.ts';

export type OperationId = keyof typeof OPERATIONS;
type Operation<K extends OperationId> = operations[K];
type Parameters_<K extends OperationId> = Operation<K> extends { parameters: infer P } ? P : never;

type RequiredKeys<T> = { [P in keyof T]-?: object extends Pick<T, P> ? never : P }[keyof T];
type ParamsPart<P> = [RequiredKeys<P>] extends [never] ? { params?: P } : { params: P };
type JsonBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type BodyPart<O> = O extends { requestBody: { content: { 'application/json': infer B } } }
  ? { body: B }
  : [JsonBody<O>] extends [never]
    ? { body?: never }
    : { body?: JsonBody<O> };

/** What a method takes: params.path, params.query, params.header and body, as the operation declares them. */
export type OperationInit<K extends OperationId> = ParamsPart<Parameters_<K>> & BodyPart<Operation<K>>;
/** The query parameters of an operation. */
export type OperationQuery<K extends OperationId> = Parameters_<K> extends { query?: infer Q } ? Exclude<Q, undefined> : never;
/** The JSON request body of an operation. */
export type OperationRequestBody<K extends OperationId> = JsonBody<Operation<K>>;

type SuccessStatus = 200 | 201 | 202;
type SuccessContent<O> = O extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: R[S] extends { content: infer C } ? C : never }[keyof R & SuccessStatus]
  : never;

/** The 2xx body: the JSON schema's type (a `success: false` answered under 200 is thrown, so not part of it), or the bytes of a document. */
export type OperationBody<K extends OperationId> =
  SuccessContent<operations[K]> extends { 'application/json': infer J } ? Exclude<J, { success: false }> : Uint8Array;

/** Per-call options, the last argument of every method. */
export interface RequestOptions {
  /** Milliseconds one attempt may take; defaults per operation to longer than the server's bound for it (timeouts.ts). */
  readonly timeout?: number;
  /** Aborts the call, its retries and its waits. */
  readonly signal?: AbortSignal;
  /** Sent as Idempotency-Key (POST): reuse the key of an earlier call to be answered from its record instead of charged again. */
  readonly idempotencyKey?: string;
  /** Attempts after the first; 0 sends once. */
  readonly maxRetries?: number;
}

/** What the SDK read from the answer, beside its body. */
export interface ResponseInfo {
  readonly status: number;
  readonly headers: Headers;
  readonly requestId: string | undefined;
  /** Credits this call charged (X-Credits-Charged), on keyed calls. */
  readonly creditsCharged: number | undefined;
  /** The account's balance after the call (X-Credits-Remaining), on keyed calls. */
  readonly creditsRemaining: number | undefined;
  /** True when the server replayed the stored answer of an earlier call with the same Idempotency-Key. */
  readonly replayed: boolean;
  /** The Idempotency-Key the call was sent with (given or generated; every retry sent it), undefined on a GET. */
  readonly idempotencyKey: string | undefined;
}

/** A flat method's result: the body beside what was read from the answer. */
export interface ApiResult<T> extends ResponseInfo {
  readonly body: T;
}

/** A resource method's result: the body itself, with the answer's facts on a non-enumerable `lastResponse`. */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

type InitArgs<K extends OperationId> = [RequiredKeys<OperationInit<K>>] extends [never]
  ? [init?: OperationInit<K>, options?: RequestOptions]
  : [init: OperationInit<K>, options?: RequestOptions];

export type OperationMethods = { readonly [K in OperationId]: (...args: InitArgs<K>) => Promise<ApiResult<OperationBody<K>>> };

/** Sends one operation and resolves with its body carrying `lastResponse`: what the resource namespaces are built on. */
export type Send = <K extends OperationId>(
  operationId: K,
  init: OperationInit<K> | undefined,
  options?: RequestOptions,
) => Promise<WithResponse<OperationBody<K>>>;

export interface CourtRecordsOptions {
  /** The API root, e.g. https://api.example.com/api/v1/prod */
  readonly baseUrl: string;
  /** Sent as X-API-Key, to the origin of baseUrl only. Optional: the public routes need none. */
  readonly apiKey?: string;
  /** Overrides of the retry policy; `timeoutMs` set here replaces every operation's default timeout. */
  readonly retry?: Partial<RetryPolicy>;
  /** Replaces fetch, the clock, sleeping, jitter or key generation (tests, custom transports). */
  readonly environment?: Partial<RetryEnvironment>;
}

export type CourtRecordsClient = OperationMethods &
  Resources &
  Waiters & {
    /** The plain presigned URL of a case's judgment PDF (getCasePdf, decrypted) and when it expires. */
    readonly casePdfUrl: (
      caseId: string,
      options?: RequestOptions,
    ) => Promise<{ readonly url: string; readonly expiresAt: string; readonly result: ApiResult<OperationBody<'getCasePdf'>> }>;
  };

function headerNumber(response: Response, name: string): number | undefined {
  const value = response.headers.get(name);
  return value === null || value.trim() === '' || Number.isNaN(Number(value)) ? undefined : Number(value);
}

type Scalar = string | number | boolean;

interface InitShape {
  readonly params?: {
    readonly path?: Readonly<Record<string, Scalar | undefined>>;
    readonly query?: Readonly<Record<string, Scalar | readonly Scalar[] | null | undefined>>;
    readonly header?: Readonly<Record<string, Scalar | undefined>>;
  };
  readonly body?: unknown;
}

function urlOf(baseUrl: string, path: string, init: InitShape): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = init.params?.path?.[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(init.params?.query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) query.append(name, String(one));
  }
  const search = query.toString();
  return `${baseUrl}${filled}${search === '' ? '' : `?${search}`}`;
}

function withLastResponse<T>(body: T, info: ResponseInfo): WithResponse<T> {
  Object.defineProperty(body, 'lastResponse', { value: info, enumerable: false });
  return body as WithResponse<T>;
}

export function createCourtRecordsClient(options: CourtRecordsOptions): CourtRecordsClient {
  const environment = { ...defaultRetryEnvironment, ...options.environment };
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const transport = resilientFetch(policy, environment);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const agent = userAgent();

  const send: Send = async (operationId, init, call = {}) => {
    const route = OPERATIONS[operationId];
    const shape = (init ?? {}) as InitShape;
    const method = route.method.toUpperCase();
    const headers = new Headers({ accept: 'application/json' });
    if (agent !== undefined) headers.set('user-agent', agent);
    if (options.apiKey !== undefined) headers.set('x-api-key', options.apiKey);
    for (const [name, value] of Object.entries(shape.params?.header ?? {})) if (value !== undefined) headers.set(name, String(value));
    if (call.idempotencyKey !== undefined) headers.set('idempotency-key', call.idempotencyKey);
    else if (method === 'POST' && !headers.has('idempotency-key')) headers.set('idempotency-key', environment.idempotencyKey());
    const idempotencyKey = headers.get('idempotency-key') ?? undefined;
    if (shape.body !== undefined) headers.set('content-type', 'application/json');
    const request = new Request(urlOf(baseUrl, route.path, shape), {
      method,
      headers,
      ...(shape.body === undefined ? {} : { body: JSON.stringify(shape.body) }),
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    });
    let response: Response;
    try {
      response = await transport(request, {
        ...(call.maxRetries === undefined ? {} : { maxRetries: call.maxRetries }),
        timeoutMs: call.timeout ?? options.retry?.timeoutMs ?? OPERATION_TIMEOUTS_MS[operationId] ?? DEFAULT_TIMEOUT_MS,
      });
    } catch (cause) {
      if (cause instanceof CourtRecordsConnectionError) throw cause;
      const aborted = call.signal?.aborted === true;
      throw new CourtRecordsConnectionError(`${operationId}: ${aborted ? 'aborted by the caller' : 'the request failed'}`, undefined, {
        cause,
        reason: aborted ? 'aborted' : 'network',
        idempotencyKey,
      });
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    let body: unknown;
    try {
      body = /\bjson\b/i.test(response.headers.get('content-type') ?? '')
        ? await response.json()
        : new Uint8Array(await response.arrayBuffer());
    } catch (cause) {
      throw new CourtRecordsConnectionError(`${operationId}: the answer could not be read`, response.status, {
        cause,
        reason: call.signal?.aborted === true ? 'aborted' : 'unreadable',
        requestId,
        idempotencyKey,
      });
    }
    if (!response.ok) throw errorFromResponse(response, body, idempotencyKey);
    if (inBandRefusal(body))
      throw codedError(response.status, body, {
        requestId,
        retryAfter: retryAfterSeconds(response.headers.get('retry-after'), environment.now()),
        idempotencyKey,
      });
    return withLastResponse(body as OperationBody<typeof operationId>, {
      status: response.status,
      headers: response.headers,
      requestId,
      creditsCharged: headerNumber(response, 'x-credits-charged'),
      creditsRemaining: headerNumber(response, 'x-credits-remaining'),
      replayed: response.headers.get('idempotency-replayed') === 'true',
      idempotencyKey,
    });
  };

  const flat = async (operationId: OperationId, init?: InitShape, call?: RequestOptions): Promise<ApiResult<unknown>> => {
    const body = await send(operationId, init as never, call);
    return { ...body.lastResponse, body };
  };
  const methods = Object.fromEntries(
    (Object.keys(OPERATIONS) as OperationId[]).map((operationId) => [
      operationId,
      (init?: InitShape, call?: RequestOptions) => flat(operationId, init, call),
    ]),
  ) as unknown as OperationMethods;
  const resources = createResources(send);

  return {
    ...methods,
    ...resources,
    ...createWaiters(resources, environment),
    casePdfUrl: async (caseId, call) => {
      const result = await methods.getCasePdf({ params: { path: { id: caseId } } }, call);
      return { url: await decryptPdfLink(result.body.data), expiresAt: result.body.meta.expiresAt, result };
    },
  };
}
