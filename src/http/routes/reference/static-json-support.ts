/**
 * Serves a fixed JSON document with a strong ETag and one hour of caching; a matching
 * If-None-Match gets 304 with no body. The body and its digest are computed once.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../env.ts';

export interface StaticJson {
  readonly body: string;
  readonly etag: string;
}

export async function prepareStaticJson(value: unknown): Promise<StaticJson> {
  const body = JSON.stringify(value);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return { body, etag: `"${hex.slice(0, 32)}"` };
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === etag);
}

export function sendStaticJson(c: Context<AppEnv>, doc: StaticJson): Response {
  c.header('ETag', doc.etag);
  c.header('Cache-Control', 'public, max-age=3600');
  if (matches(c.req.header('If-None-Match'), doc.etag)) return c.body(null, 304);
  c.header('Content-Type', 'application/json; charset=utf-8');
  return c.body(doc.body, 200);
}
