/**
 * Renders an ApiError in the spec's shapes: coded errors carry code, message, error (the
 * same text) and requestId (equal to X-Request-Id); validation errors add details; the
 * rate-limit layer's body is bare (no success field) with retryAfter and resetTime. An
 * in-band error is the coded body under HTTP 200, with Cache-Control: no-store.
 */
import type { Context } from 'hono';
import type { ApiError } from './api-error.ts';
import type { AppEnv } from './env.ts';

export function renderError(c: Context<AppEnv>, error: ApiError): Response {
  const requestId = c.get('requestId');
  c.set('errorCode', error.code);
  const message = error.message;
  for (const [name, value] of Object.entries(error.options.headers ?? {})) c.header(name, value);
  const extra = error.options.extra ?? {};
  if (error.options.inBand) c.header('Cache-Control', 'no-store');
  const status = error.options.inBand ? 200 : error.status;
  switch (error.options.shape ?? 'coded') {
    case 'rate-limit':
      return c.json({ error: message, message, code: error.code, ...extra }, status);
    case 'bare':
      return c.json({ error: message, ...extra }, status);
    case 'coded':
      return c.json(
        {
          success: false as const,
          code: error.code,
          message,
          error: message,
          ...(error.options.details ? { details: error.options.details } : {}),
          ...extra,
          requestId,
        },
        status,
      );
  }
}
