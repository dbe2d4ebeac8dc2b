/**
 * A browser session for the Temporal codec endpoint. The Temporal Web UI cannot send an
 * Authorization header to a codec server, only cookies (when "Include cross-origin
 * credentials" is on), so an operator opens a session here once: GET .../login is a form
 * where the admin token is pasted, and POST .../session (that form, or a bearer call) sets
 * a cookie holding an expiry signed with a key derived from ADMIN_TOKEN. Nothing is
 * stored server-side; rotating ADMIN_TOKEN ends every session. The cookie is SameSite=Strict
 * and scoped to the codec path: the Web UI on 127.0.0.1:8233 is the same site as the API on
 * 127.0.0.1:3000 (ports do not count; localhost and 127.0.0.1 are two sites), a page on
 * another site never sends it. The Web UI the embedded default starts needs no session
 * (temporal-codec.ts trusts its origin); this is for a Web UI run apart. A form post
 * is accepted only from this service's own origin, so another page cannot plant a session.
 * A token pasted into the form is throttled per client address like the bearer token: one
 * count of wrong admin tokens covers both. A live session still passes from a throttled
 * address: it proves the token was given before, as a cached key does.
 * Web Crypto only, so it runs unchanged under Node and Deno.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { checkAdminToken, requireAdminToken, type AdminTokenAttempts } from '../admin/admin-token-support.ts';
import { ADMIN_GATE_ERRORS } from '../admin/schemas.ts';
import { CODEC_SESSION_COOKIE, CODEC_SESSION_SECONDS, type CodecSessionSigner } from './temporal-codec-session-support.ts';

const HTML_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  // same-origin, not no-referrer: under no-referrer the form post would carry Origin: null and be refused.
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${title}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}
input,button{font:inherit;padding:.3rem}input{width:100%;box-sizing:border-box}</style></head>
<body><h1>${title}</h1>${body}</body></html>`;
}

export interface CodecSessionDeps {
  readonly basePath: string;
  readonly adminToken: string;
  readonly signer: CodecSessionSigner;
  readonly attempts: AdminTokenAttempts;
  /** Behind a trusted proxy, X-Forwarded-Proto says whether the client used HTTPS (Secure cookie). */
  readonly trustProxy: boolean;
}

const openDescription = (
  path: string,
) => `Opens an 8-hour ops session for the Temporal Web UI, which cannot send a bearer token to a codec server.
An operator opens GET ${path}/login in the browser that runs the Web UI, pastes ADMIN_TOKEN and submits; the form posts
\`token=\` here (accepted only when Origin, or Referer, is this service's own origin) and the answer sets an HttpOnly,
SameSite=Strict cookie scoped to the codec path. Then, in the Web UI's codec settings, set the endpoint to this service's
codec path and enable "Include cross-origin credentials" (TEMPORAL_CODEC_INCLUDE_CREDENTIALS=true on a UI server). Use the
same host name for the UI and the API (127.0.0.1 with 127.0.0.1, never localhost with 127.0.0.1): the cookie is sent only
within one site. The Web UI the embedded default starts itself needs no session. A bearer call (Authorization: Bearer
ADMIN_TOKEN, no body) sets the same cookie and answers JSON.`;

const BEARER_OR_FORM: Record<string, string[]>[] = [{ AdminToken: [] }, {}];

function routes(path: string) {
  const open = createRoute({
    operationId: 'openTemporalCodecSession',
    method: 'post',
    path: `${path}/session`,
    tags: ['Ops'],
    summary: 'Open a Temporal codec session for the Web UI',
    description: openDescription(path),
    security: BEARER_OR_FORM,
    request: {
      body: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: z.object({
              token: z.string().max(4096).optional().openapi({ description: 'ADMIN_TOKEN, from the login form.' }),
            }),
          },
        },
      },
    },
    responses: {
      200: {
        description: 'Session cookie set: JSON for a bearer call, a short HTML page for the form.',
        content: {
          'application/json': { schema: z.object({ expiresAt: z.string().openapi({ description: 'ISO 8601 time the session ends.' }) }) },
          'text/html': { schema: z.string() },
        },
      },
      ...errorResponses(...ADMIN_GATE_ERRORS, 'CSRF_TOKEN_INVALID', ...BODY_ERRORS),
    },
  });
  const close = createRoute({
    operationId: 'closeTemporalCodecSession',
    security: [],
    method: 'delete',
    path: `${path}/session`,
    tags: ['Ops'],
    summary: 'End the Temporal codec session in this browser',
    // Under the per-address limit of the session path (app.ts), like the login that opens one.
    responses: { 204: { description: 'Session cookie cleared.' }, ...errorResponses('RATE_LIMITED') },
  });
  const login = createRoute({
    operationId: 'getTemporalCodecLoginForm',
    security: [],
    method: 'get',
    path: `${path}/login`,
    tags: ['Ops'],
    summary: 'Form that opens a Temporal codec session (paste ADMIN_TOKEN)',
    responses: {
      200: { description: 'The login form, self-contained HTML.', content: { 'text/html': { schema: z.string() } } },
      ...errorResponses(),
    },
  });
  return { open, close, login };
}

function isHttps(c: Context, trustProxy: boolean): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true;
  return trustProxy && c.req.header('X-Forwarded-Proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/** The form came from a page of this service: Origin (or, lacking it, Referer) names this host. */
function postedFromHere(c: Context): boolean {
  const source = c.req.header('Origin') ?? c.req.header('Referer');
  return source !== undefined && URL.canParse(source) && new URL(source).host === new URL(c.req.url).host;
}

const isForm = (c: Context) => /^application\/x-www-form-urlencoded\b/i.test(c.req.header('Content-Type') ?? '');

export function registerCodecSession(root: App, deps: CodecSessionDeps): void {
  const { open, close, login } = routes(deps.basePath);
  const cookie = (c: Context) =>
    ({ httpOnly: true, sameSite: 'Strict', path: deps.basePath, secure: isHttps(c, deps.trustProxy) }) as const;

  // A form carries its token in the body; anything else must carry the bearer token.
  const bearer = requireAdminToken(deps.adminToken, deps.attempts);
  root.post(open.path, async (c, next) => (isForm(c) ? next() : bearer(c, next)));
  root.openapi(open, async (c) => {
    const { token } = c.req.valid('form');
    if (isForm(c)) {
      // Before the token check, so a cross-site page learns nothing about a guessed token.
      if (!postedFromHere(c)) {
        throw new ApiError('CSRF_TOKEN_INVALID', { message: 'The login form must be posted from this service’s own origin.' });
      }
      if (!(await checkAdminToken(deps.attempts, c, token, (pasted) => deps.signer.isAdminToken(pasted)))) {
        throw new ApiError('ADMIN_UNAUTHORIZED', { message: 'That is not the admin token.' });
      }
    }
    const session = await deps.signer.issue();
    setCookie(c, CODEC_SESSION_COOKIE, session.value, { ...cookie(c), maxAge: CODEC_SESSION_SECONDS });
    if (!isForm(c)) return c.json({ expiresAt: session.expiresAt.toISOString() }, 200);
    const opened = page(
      'Codec session open for 8 hours',
      `<p>Until ${session.expiresAt.toISOString()}, the Temporal Web UI in this browser can decode payloads.</p>
<p>In the Web UI's codec settings, set the endpoint to this service's <code>${deps.basePath}</code> and enable
<strong>Include cross-origin credentials</strong>.</p>`,
    );
    return c.body(opened, 200, HTML_HEADERS);
  });

  root.openapi(close, (c) => {
    deleteCookie(c, CODEC_SESSION_COOKIE, cookie(c));
    return c.body(null, 204);
  });

  const form = page(
    'Temporal codec session',
    `<p>Paste ADMIN_TOKEN to let the Temporal Web UI in this browser decode payloads for 8 hours.</p>
<form method="post" action="${deps.basePath}/session"><p><label>Admin token
<input type="password" name="token" required autocomplete="off" autofocus></label></p>
<p><button type="submit">Open session</button></p></form>`,
  );
  root.openapi(login, (c) => c.body(form, 200, HTML_HEADERS));
}
