/**
 * The dashboard's page shell and stylesheet. Pages are HTML rendered on the server with
 * hono/html tagged templates: every interpolated value is escaped, nothing is bundled, no
 * script runs in the browser (the CSP allows none), and the same files run under Node and
 * Deno without a JSX compiler setting. Styles come from one stylesheet served by the
 * service, so the CSP needs no 'unsafe-inline'.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { SessionUser } from '../../../application/sessions/session-service.ts';
import { CSRF_FIELD, DASHBOARD_PATH } from './session-support.ts';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export const STYLESHEET_PATH = `${DASHBOARD_PATH}/assets/dashboard.css`;

export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2530;background:#f5f6f8}
header{background:#1f3a5f;color:#fff;padding:.6rem 1.5rem;display:flex;align-items:center;gap:1.5rem;flex-wrap:wrap}
header strong{font-size:1.05rem}
header nav a{color:#dbe6f3;margin-right:1rem;text-decoration:none}
header nav a[aria-current=page]{color:#fff;border-bottom:2px solid #f4b942}
header form{margin-left:auto}
header .who{font-size:.85rem;color:#c5d3e3}
main{max-width:64rem;margin:1.5rem auto;padding:0 1.5rem}
section{background:#fff;border:1px solid #dde2e8;border-radius:6px;padding:1rem 1.25rem;margin-bottom:1.25rem}
h1{font-size:1.4rem;margin:.2rem 0 1rem}
h2{font-size:1.1rem;margin:.2rem 0 .75rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e7eaee;vertical-align:top}
th{background:#f0f2f5;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
code,.key{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.88rem}
.key{display:block;background:#fff8e1;border:1px solid #f4b942;padding:.6rem;border-radius:4px;word-break:break-all;font-size:1rem}
.notice{background:#eef6ee;border:1px solid #9cc89c;padding:.6rem .8rem;border-radius:4px}
.error{background:#fdecec;border:1px solid #e0a0a0;padding:.6rem .8rem;border-radius:4px}
.muted{color:#5b6673;font-size:.88rem}
.status-active{color:#1e7b34}.status-grace{color:#a86400}.status-revoked,.status-expired{color:#9b2226}
form.inline{display:inline}
input[type=text],input[type=email],input[type=password]{font:inherit;padding:.35rem .5rem;border:1px solid #b8c1cc;border-radius:4px;min-width:16rem}
button{font:inherit;padding:.3rem .8rem;border:1px solid #1f3a5f;background:#1f3a5f;color:#fff;border-radius:4px;cursor:pointer}
button.secondary{background:#fff;color:#1f3a5f}
button.danger{background:#9b2226;border-color:#9b2226}
label{display:block;margin:.5rem 0 .2rem;font-weight:600}
.login{max-width:24rem;margin:4rem auto}
.login input[type=email],.login input[type=password]{width:100%;min-width:0}
.balance{font-size:2rem;font-weight:700}
.chart{width:100%;height:auto;border:1px solid #e7eaee}
.legend span{display:inline-block;margin-right:1rem;font-size:.85rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-1px}
.s0{background:#1f77b4}.s1{background:#ff7f0e}.s2{background:#2ca02c}.s3{background:#d62728}.s4{background:#9467bd}.s5{background:#8c564b}.s6{background:#e377c2}.s7{background:#7f7f7f}
`;

const NAV = [
  ['keys', 'API keys'],
  ['usage', 'Usage'],
  ['ledger', 'Credits'],
  ['audit', 'Audit'],
  ['webhooks', 'Webhooks'],
  ['billing', 'Billing'],
] as const;

export type Section = (typeof NAV)[number][0];

export function shell(title: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Court Records dashboard</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
      </head>
      <body>
        ${body}
      </body>
    </html>`;
}

/** A page of the logged-in dashboard: the navigation, who is logged in, a logout form. */
export function page(options: { title: string; section: Section; user: SessionUser; csrfToken: string }, content: Html): Html {
  const { user } = options;
  const nav = NAV.map(
    ([section, label]) =>
      html`<a href="${DASHBOARD_PATH}/${section}" ${section === options.section ? html`aria-current="page"` : ''}>${label}</a>`,
  );
  return shell(
    options.title,
    html`<header>
        <strong>Court Records</strong>
        <nav>${nav}</nav>
        <span class="who">${user.email} · ${user.role === 'ORG_ADMIN' ? 'organisation admin' : 'member'}</span>
        <form method="post" action="${DASHBOARD_PATH}/logout">
          ${csrfInput(options.csrfToken)}<button class="secondary" type="submit">Log out</button>
        </form>
      </header>
      <main>
        <h1>${options.title}</h1>
        ${content}
      </main>`,
  );
}

export function csrfInput(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;
}

export const integer = (n: number): string => n.toLocaleString('en-IN');
