/**
 * The response headers every client may read, declared once in a generated OpenAPI
 * document rather than in each route: the request id on every response, the rate-limit
 * allowance on every keyed or address-limited one, the credits a call charged and what is
 * left on a keyed call's success, and Retry-After on 429 and 503. None is marked required:
 * a client reads them when present (an address limit whose store is down sends none).
 */

interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, { headers?: Record<string, unknown> } & Record<string, unknown>>;
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown> | undefined>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const HEADERS = {
  'X-Request-Id': {
    description: 'The server’s id of this request: quote it to support. Every response carries it.',
    schema: { type: 'string' },
  },
  'RateLimit-Limit': { description: 'Requests allowed in the current minute for this key (or address).', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the minute’s allowance resets.', schema: { type: 'integer' } },
  'X-Credits-Charged': {
    description: 'Credits this call charged (0 when it was not charged). Absent on unpriced calls.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Credits-Remaining': { description: 'The account’s balance after this call, when known.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
} as const;

type HeaderName = keyof typeof HEADERS;

const ref = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** Adds the shared headers to each response of each operation, keeping what a route declared itself. */
export function declareResponseHeaders<T>(generated: T, options: { readonly limitedPaths: (path: string) => boolean }): T {
  const document = generated as OpenApiDocument;
  document.components = { ...document.components, headers: { ...document.components?.headers, ...HEADERS } };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (operation?.responses === undefined) continue;
      const keyed = (operation.security ?? []).some((requirement) => 'ApiKeyHeader' in requirement);
      const limited = keyed || options.limitedPaths(path);
      for (const [status, response] of Object.entries(operation.responses)) {
        const names: HeaderName[] = ['X-Request-Id'];
        if (limited) names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
        if (keyed && status.startsWith('2')) names.push('X-Credits-Charged', 'X-Credits-Remaining');
        if (status === '429' || status === '503') names.push('Retry-After');
        const declared = response.headers ?? {};
        response.headers = { ...Object.fromEntries(names.map((name) => [name, ref(name)])), ...declared };
      }
    }
  }
  return generated;
}
