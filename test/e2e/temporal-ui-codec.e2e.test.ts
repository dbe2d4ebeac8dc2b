/**
 * Black-box, in a real browser: the Temporal Web UI of the embedded default shows workflow
 * payloads decoded with nothing set up (issue 16). The service starts on embedded defaults
 * (its own Temporal dev server and Web UI), a seeded key asks for an analysis, and chromium
 * opens that workflow in the Web UI as an operator would: no codec login, no setting
 * touched in the browser. The input must read as JSON with the run id, which only the
 * service's codec endpoint can produce (the history holds it encrypted). Then what that
 * trust rests on: the same page reached under another origin (localhost for 127.0.0.1)
 * decodes nothing, and the UI listens on loopback only.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumPath, launchChromium, NO_CHROMIUM } from '../support/browser.ts';
import { corpusDir } from '../support/corpus.ts';
import { freePort, runCommand, startService, type RunningService } from '../support/service-process.ts';

const CASE_ID = 'sc-inabs-5861';
/** What the UI says when its codec calls fail: the symptom of issue 16. */
const CODEC_FAILED = 'Codec Server could not connect';
const skip = chromiumPath() ? false : NO_CHROMIUM;

/** The workflow's page in the Web UI, as its list links to it. */
const workflowPage = (uiOrigin: string, workflowId: string) => `${uiOrigin}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

describe(
  'the embedded Temporal Web UI shows workflow payloads decoded, with no login or browser setting',
  { skip, timeout: 600_000 },
  () => {
    let service: RunningService | undefined;
    let browser: Browser | undefined;
    let uiPort: number;
    let workflowId: string;

    before(async () => {
      uiPort = await freePort();
      service = await startService('node', {
        CORPUS_DIR: corpusDir,
        AUTO_INGEST: 'true',
        // The embedded default: the service starts the dev server and its UI (free ports, beside other tests).
        TEMPORAL_ADDRESS: '',
        TEMPORAL_DEV_PORT: String(await freePort()),
        TEMPORAL_UI_PORT: String(uiPort),
        // Lets a page at localhost read the codec's answers, so the refusal below is the gate's 401, not CORS.
        TEMPORAL_UI_ORIGIN: `http://localhost:${String(uiPort)}`,
        TRUSTED_PROXIES: '',
        PUBLIC_BASE_URL: '',
      });
      const url = new URL(service.url);
      const seeded = await runCommand(process.execPath, ['bin/court-records.mjs', 'dev', 'seed', '--json'], {
        HOST: url.hostname,
        PORT: url.port,
        DATA_DIR: service.dataDir,
        DATABASE_URL: '',
        COURT_RECORDS_URL: '',
      });
      assert.equal(seeded.code, 0, seeded.stderr);
      const { apiKey, apiRoot } = JSON.parse(seeded.stdout) as { apiKey: string; apiRoot: string };
      // The first start ingests the corpus after /health answers: the case is found once it is in.
      workflowId = await until(`an analysis of ${CASE_ID} admitted`, 300_000, async () => {
        const res = await fetch(`${apiRoot}/cases/${CASE_ID}/analyze`, { method: 'POST', headers: { 'X-API-Key': apiKey } });
        const body = (await res.json()) as { data?: { runId?: string } };
        if (res.status === 404) return undefined;
        assert.equal(res.status, 202, JSON.stringify(body));
        return body.data?.runId;
      });
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await service?.stop();
    });

    /**
     * The workflow page's text once the codec has answered the page and the page shows the
     * input decoded (the run id as JSON) or says decoding failed; and those answers.
     */
    async function workflowPageText(uiOrigin: string): Promise<{ text: string; codecAnswers: number[] }> {
      const page = await browser!.newPage();
      const codecAnswers: number[] = [];
      page.on('response', (res) => {
        const call = res.request();
        if (call.method() === 'POST' && call.url().startsWith(`${service!.url}/ops/temporal-codec/decode`)) codecAnswers.push(res.status());
      });
      let text = '';
      try {
        await page.goto(workflowPage(uiOrigin, workflowId), { waitUntil: 'domcontentloaded' });
        // The answer too: a sealed payload is shown before it comes back.
        await until('the input shown and the codec answered', 60_000, async () => {
          text = await page.locator('body').innerText();
          return codecAnswers.length > 0 && (text.includes(decodedInput()) || text.includes(CODEC_FAILED)) ? true : undefined;
        });
        return { text, codecAnswers };
      } catch (error) {
        throw new Error(`${String(error)}; codec answers [${codecAnswers.join()}]; the page read:\n${text}`);
      } finally {
        await page.close();
      }
    }

    /** How the Input panel prints the decoded input's first field. */
    const decodedInput = () => `"runId": "${workflowId}"`;

    it('opened at the UI the service started (http://127.0.0.1:<TEMPORAL_UI_PORT>), the input reads as JSON with the run id', async () => {
      const { text, codecAnswers } = await workflowPageText(`http://127.0.0.1:${String(uiPort)}`);
      assert.ok(text.includes(decodedInput()), text);
      assert.ok(!text.includes(CODEC_FAILED), text);
      assert.deepEqual([...new Set(codecAnswers)], [200]);
    });

    it('under another origin (localhost) the same page decodes nothing ("Codec Server could not connect"): the codec answers it 401', async () => {
      const { text, codecAnswers } = await workflowPageText(`http://localhost:${String(uiPort)}`);
      assert.ok(text.includes(CODEC_FAILED), text);
      assert.ok(!text.includes(decodedInput()), text);
      assert.deepEqual([...new Set(codecAnswers)], [401]);
    });

    it('the UI listens on loopback only: another address of this machine refuses it', async (t) => {
      const outside = Object.values(networkInterfaces())
        .flat()
        .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;
      if (!outside) return t.skip('this machine has no address but loopback');
      assert.equal(await accepts('127.0.0.1', uiPort), true);
      assert.equal(await accepts(outside, uiPort), false, `the UI answers on ${outside}`);
    });
  },
);
