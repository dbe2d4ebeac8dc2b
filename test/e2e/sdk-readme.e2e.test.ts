/**
 * The SDK's README, run: each code block is a file of sdk/examples (checked equal), and each
 * runs against the real service started as `npm start` does (embedded defaults, the sample
 * corpus, the Temporal dev server) with a key from `court-records dev seed`, beside a
 * court-portal fixture server that answers live fetches a little late, so waitForTimeline
 * really polls a running job and waitForAnalysis a running analysis. The webhook block's
 * handler is called with a delivery signed as the server signs one, and with a tampered one.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN_FILE } from '../../src/adapters/crypto/local-secret.ts';
import { EVENT_API_VERSION, type WebhookPayload } from '../../src/domain/webhook/webhook-endpoints.ts';
import { signWebhook } from '../../sdk/src/webhooks.ts';
import { handleWebhook } from '../../sdk/examples/webhook-handler.ts';
import { corpusDir } from '../support/corpus.ts';
import { startEcourtsPortalServer, type EcourtsPortalServer } from '../support/ecourts-portal-server.ts';
import { runCommand, startService, type RunningService } from '../support/service-process.ts';

const skip = process.env.ADMIN_TOKEN ? 'ADMIN_TOKEN is set in the test environment' : false;
const README = readFileSync('sdk/README.md', 'utf8');
const EXAMPLES = ['first-calls.ts', 'paginate-and-wait.ts', 'webhook-handler.ts'];

async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(`${what} did not happen within ${ms} ms`);
}

describe('the SDK README’s examples against a started service', { skip, timeout: 900_000 }, () => {
  let service: RunningService;
  let portal: EcourtsPortalServer;
  let account: { apiKey: string; apiRoot: string };

  const runExample = async (name: string) => {
    const run = await runCommand(process.execPath, ['--import', 'tsx', `sdk/examples/${name}`], {
      COURT_RECORDS_API: account.apiRoot,
      COURT_RECORDS_API_KEY: account.apiKey,
    });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    return run.stdout.trimEnd().split('\n');
  };
  const balance = async () => {
    const usage = await fetch(`${account.apiRoot}/usage`, { headers: { 'X-API-Key': account.apiKey } });
    return ((await usage.json()) as { data: { balance: number } }).data.balance;
  };

  before(async () => {
    portal = await startEcourtsPortalServer({ delayMs: 1_500 });
    service = await startService('node', { AUTO_INGEST: 'true', CORPUS_DIR: corpusDir, COURT_PORTAL_URL: portal.url });
    const url = new URL(service.url);
    const env = { HOST: url.hostname, PORT: url.port, DATA_DIR: service.dataDir, DATABASE_URL: '', COURT_RECORDS_URL: '' };
    const seeded = await runCommand(process.execPath, ['bin/court-records.mjs', 'dev', 'seed', '--json', '--credits', '10000'], env);
    assert.equal(seeded.code, 0, seeded.stderr);
    account = JSON.parse(seeded.stdout) as { apiKey: string; apiRoot: string };
    const operator = { Authorization: `Bearer ${readFileSync(ADMIN_TOKEN_FILE(service.dataDir), 'utf8').trim()}` };
    await until('the workflow engine and its workers', 180_000, async () => {
      const health = await fetch(`${account.apiRoot}/health?deep=1`, { headers: operator });
      const checks = ((await health.json()) as { checks: { workflowEngine?: { ok: boolean }; workers?: { ok: boolean } } }).checks;
      return checks.workflowEngine?.ok === true && checks.workers?.ok === true;
    });
    // The first start ingests the metadata, then the judgments' full text: the examples need both.
    await until('the corpus, with the judgment the examples analyse', 300_000, async () => {
      const found = await fetch(`${service.url}/api/v1/prod/reference/courts`);
      if (!found.ok) return false;
      const read = await fetch(`${account.apiRoot}/cases/sc-inabs-5861`, { headers: { 'X-API-Key': account.apiKey } });
      const search = await fetch(`${account.apiRoot}/search/cases`, {
        method: 'POST',
        headers: { 'X-API-Key': account.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: 'union of india', limit: 1 }),
      });
      return read.status === 200 && search.status === 200 && ((await search.json()) as { data: unknown[] }).data.length > 0;
    });
  });
  after(async () => {
    await service.stop();
    await portal.close();
  });

  it('shows each example file verbatim', () => {
    for (const name of EXAMPLES) {
      const block = new RegExp(`<!-- example:${name.replace('.', '\\.')} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n<!-- example-end -->`).exec(
        README,
      )?.[1];
      assert.equal(block, readFileSync(`sdk/examples/${name}`, 'utf8'), `${name} differs from its README block`);
    }
  });

  it('first-calls.ts: a charged search, a typed refusal, a decrypted PDF link', async () => {
    const before = await balance();
    const lines = await runExample('first-calls.ts');
    const hits = lines.filter((l) => /^\S+ {2}\S/.test(l));
    assert.ok(hits.length > 0 && hits.length <= 3, lines.join('\n'));
    assert.ok(lines.includes(`charged 5 credits, ${before - 5} left`), lines.join('\n'));
    assert.ok(
      lines.some((l) => /^refused: CASE_NOT_FOUND \(request \S+\)$/.test(l)),
      lines.join('\n'),
    );
    assert.match(lines.at(-1) ?? '', /^(PDF of \S+ until \S+: \/\S+|no PDF held for \S+)$/);
  });

  it('paginate-and-wait.ts: five hits across three pages, an analysis and a live timeline waited for, a timed-out call retried with its key', async () => {
    const before = await balance();
    const calls = portal.calls.caseHistory;
    const lines = await runExample('paginate-and-wait.ts');
    const output = lines.join('\n');
    const hits = lines.filter((l) => l.startsWith('hit '));
    assert.deepEqual(
      hits.map((l) => l.split(':')[0]),
      ['hit 1', 'hit 2', 'hit 3', 'hit 4', 'hit 5'],
    );
    assert.equal(new Set(hits.map((l) => l.split(': ')[1])).size, 5, output);
    const analysis = lines.find((l) => l.startsWith('analysis '));
    assert.match(analysis ?? '', /^analysis analysis-sc-inabs-5861-\d+: [1-9]\d* characters$/, output);
    assert.match(output, /^timeline completed: [1-9]\d* hearings, 50 credits$/m);
    assert.ok(portal.calls.caseHistory > calls, 'the timeline was fetched live from the portal');
    assert.match(output, /^retried after a timeout with the same key: \d+ hits$/m);
    // Three pages of two, the analysis (100) and its read (1), the live fetch (50), one search kept once.
    const expected = before - 3 * 5 - 100 - 1 - 50 - 5;
    await until('the charges to settle', 30_000, async () => (await balance()) === expected).catch(() => undefined);
    assert.equal(await balance(), expected);
  });

  it('webhook-handler.ts: answers a delivery signed as the server signs one by its typed event, and refuses a tampered one', async () => {
    const secret = `whsec_${Buffer.from('a webhook secret of thirty-two!!').toString('base64')}`;
    const at = new Date().toISOString();
    const event: WebhookPayload = {
      id: 'evt_Zk3bq9Yt0m1XcV4rTq8WnA2sJd7Hf6Lp',
      object: 'event',
      type: 'analysis.stored',
      createdAt: at,
      timestamp: at,
      apiVersion: EVENT_API_VERSION,
      mode: 'live',
      data: { runId: 'analysis-sc-inabs-5861-1', kind: 'single', caseId: 'sc-inabs-5861' },
    };
    const payload = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': await signWebhook({ id: 'msg_1', timestamp, payload, secret }),
    };
    const delivery = (body: string) => new Request('http://127.0.0.1/webhooks', { method: 'POST', headers, body });
    const accepted = await handleWebhook(delivery(payload), secret);
    assert.deepEqual(
      [accepted.status, await accepted.text()],
      [200, 'analysis analysis-sc-inabs-5861-1 of sc-inabs-5861 (single) is stored'],
    );
    const refused = await handleWebhook(delivery(payload.replace('5861', '5862')), secret);
    assert.deepEqual([refused.status, await refused.text()], [400, 'refused: NO_MATCHING_SIGNATURE']);
  });
});
