/**
 * The dashboard in a real browser (Debian's chromium through playwright-core) against the
 * app behind a real HTTP listener, with the audit projection to the embedded ClickHouse
 * running as in the service: log in, create a key and use its plaintext for a real keyed
 * call, rotate it (the grace period shown), revoke it, see the calls just made in the usage
 * chart, export the ledger as CSV, and open the billing page. No page may trip the CSP.
 * With SCREENSHOTS=1 (npm run screenshots) it saves the pages to docs/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { exportLedger } from '../../src/application/credits/ledger-export.ts';
import { loadConfig } from '../../src/config.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { csvLine, LEDGER_CSV_COLUMNS } from '../../src/http/routes/dashboard/ledger.ts';
import { auditToClickHouse } from '../../src/projections/audit-to-clickhouse.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { openTestAnalytics } from '../support/analytics.ts';
import { BASE, buildTestApp, type TestApp } from '../support/app.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM } from '../support/browser.ts';
import { databases } from '../support/databases.ts';
import { eventStoreOf } from '../../src/wiring.ts';

const SCREENSHOTS = process.env.SCREENSHOTS === '1' ? join(import.meta.dirname, '..', '..', 'docs', 'screenshots') : undefined;
const EMAIL = 'priya@vr.example';
const PASSWORD = 'a long dashboard passphrase';

describe('the dashboard in a browser', { skip: chromiumPath() === undefined ? NO_CHROMIUM : false, timeout: 300_000 }, () => {
  let database: OpenedDatabase;
  let closeAnalytics: () => Promise<void>;
  let projector: ProjectorRunner;
  let t: TestApp;
  let server: ServerType;
  let origin: string;
  let browser: Browser;
  let page: Page;
  let organizationId: string;
  const cspViolations: string[] = [];

  const shot = async (name: string) => {
    if (SCREENSHOTS !== undefined) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  const api = (key: string, path: string) => fetch(`${origin}${BASE}${path}`, { headers: { 'X-API-Key': key } });

  before(async () => {
    database = await databases[0]!.open();
    const analytics = await openTestAnalytics();
    closeAnalytics = analytics.close;
    const config = loadConfig({});
    t = buildTestApp({
      db: database.db,
      analytics: analytics.store,
      links: { topUpUrl: config.TOP_UP_URL, upgradeUrl: config.UPGRADE_URL },
    });
    projector = new ProjectorRunner(database.db, eventStoreOf(database.db), auditToClickHouse(analytics.store), {
      now: () => new Date(),
      idleMs: 100,
    });
    projector.start();
    // Pins where the key cache's invalidation starts reading, as the service does before serving.
    await t.application.invalidator.poll();
    server = serve({ fetch: (request) => t.app.fetch(request), port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const operator = { kind: 'operator' } as const;
    const org = await t.application.accounts.createOrganization(
      { name: 'Verma & Rao Advocates', allowlist: [], strictAllowlist: false },
      operator,
    );
    assert.ok(org.ok);
    organizationId = org.value.organizationId;
    const user = await t.application.accounts.registerUser(
      enterpriseUser(EMAIL, { organizationId, role: 'ORG_ADMIN', password: PASSWORD, name: 'Priya Raman' }),
      operator,
    );
    assert.ok(user.ok);
    assert.ok((await t.application.credits.grant(organizationId, { amount: 10_000, source: 'purchase', note: 'PO 2026-118' })).ok);

    if (SCREENSHOTS !== undefined) mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  });
  after(async () => {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
    await projector.stop();
    await closeAnalytics();
    await database.close();
  });

  it('logs in, manages a key whose plaintext works once shown, charts the calls and exports the ledger', async () => {
    await page.goto(`${origin}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/login');
    await shot('login');
    await page.fill('#email', EMAIL);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${origin}/dashboard/keys`), page.click('button[type=submit]:has-text("Log in")')]);

    // Create: the plaintext is on this answer only, and it is a working key.
    await page.fill('#name', 'Research notebook');
    await page.click('button:has-text("Create key")');
    const plaintext = (await page.textContent('[data-testid=plaintext-key]'))?.trim() ?? '';
    assert.match(plaintext, /^crk_live-/);
    await shot('keys-created');
    for (const path of ['/judges/search?q=chandrachud', '/judges/search?q=bhagwati', '/me']) {
      assert.equal((await api(plaintext, path)).status, 200, path);
    }
    await page.goto(`${origin}/dashboard/keys`);
    assert.equal((await page.content()).includes(plaintext), false, 'shown once');

    // Rotate: the old key is in its grace period, shown, and still works.
    await page.click('tr:has-text("Research notebook") button:has-text("Rotate")');
    const grace = (await page.textContent('[data-testid=grace] strong')) ?? '';
    assert.ok(Math.abs(Date.parse(grace) - Date.now() - 24 * 3600_000) < 120_000, grace);
    const replacement = (await page.textContent('[data-testid=plaintext-key]'))?.trim() ?? '';
    assert.notEqual(replacement, plaintext);
    assert.equal((await api(plaintext, '/me')).status, 200, 'in grace');
    assert.equal((await api(replacement, '/me')).status, 200);
    await page.goto(`${origin}/dashboard/keys`);
    assert.match((await page.textContent(`tr:has-text("Research notebook") >> nth=1`)) ?? '', /grace/);

    // Revoke the replacement: it stops at once.
    await page.click('tr:has-text("Research notebook (rotated)") button:has-text("Revoke")');
    await page.waitForSelector('text=Key revoked');
    await t.application.invalidator.poll();
    assert.equal((await api(replacement, '/me')).status, 401);
    assert.equal(
      t.logs.some((line) => line.includes(plaintext) || line.includes(replacement)),
      false,
      'no plaintext key is logged',
    );
    await shot('keys');

    // Usage: the audit projection brings the calls to the chart within seconds.
    let bars = 0;
    for (let tries = 0; tries < 60 && bars === 0; tries += 1) {
      await page.goto(`${origin}/dashboard/usage`);
      bars = await page.locator('[data-testid=usage-chart] rect[data-endpoint="/judges/search"]').count();
      if (bars === 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(await page.getAttribute('[data-testid=usage-chart] rect[data-endpoint="/judges/search"]', 'data-calls'), '2');
    assert.equal(await page.getAttribute('[data-testid=usage-chart] rect[data-endpoint="/me"]', 'data-calls'), '3');
    await shot('usage');

    // Ledger and its CSV export: the file is the ledger.
    await page.goto(`${origin}/dashboard/ledger`);
    assert.equal((await page.textContent('[data-testid=balance]'))?.trim(), (9_998).toLocaleString('en-IN'));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Export CSV')]);
    const csv = readFileSync(await download.path(), 'utf8');
    let expected = csvLine(LEDGER_CSV_COLUMNS);
    for await (const row of exportLedger(eventStoreOf(database.db), {
      from: new Date(0),
      to: new Date(Date.now() + 1000),
      accountId: organizationId,
    }))
      expected += csvLine(LEDGER_CSV_COLUMNS.map((column) => row[column]));
    assert.equal(csv, expected);
    assert.equal(csv.split('\r\n').length, 5, 'header, grant, two charges, and the last line break');
    await shot('ledger');

    await page.goto(`${origin}/dashboard/billing`);
    assert.match((await page.textContent('h2:has-text("Top up") + p')) ?? '', /added by an operator/);
    await shot('billing');
    await page.goto(`${origin}/dashboard/billing/plans`);
    await shot('plans');
    assert.deepEqual(cspViolations, []);
  });
});
