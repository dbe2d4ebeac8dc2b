/**
 * Document storage, both adapters, with a real judgment rendered from the corpus. The
 * local folder and its serving route run through app.request on a minimal OpenAPIHono app
 * (valid, expired, tampered and borrowed links; odd ids; no path in any error). The S3
 * adapter runs against moto's server, a fake S3 started here on a free port, and its
 * presigned links are downloaded with fetch; it is skipped when moto is not importable.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { OpenAPIHono } from '@hono/zod-openapi';
import { renderJudgmentPdf } from '../../src/adapters/pdf/render-judgment-pdf.ts';
import { DocumentLinkSigner } from '../../src/adapters/storage/document-link-signer.ts';
import { LocalDocumentStorage } from '../../src/adapters/storage/local-document-storage.ts';
import { openDocumentStorage } from '../../src/adapters/storage/open-document-storage.ts';
import { S3DocumentStorage } from '../../src/adapters/storage/s3-document-storage.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scIk50Source } from '../../src/corpus/sources/sc-ik50.ts';
import { ApiError } from '../../src/http/api-error.ts';
import type { App } from '../../src/http/app-types.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { requestId } from '../../src/http/middleware/request-id.ts';
import { renderError } from '../../src/http/render-error.ts';
import { registerGetDocument } from '../../src/http/routes/documents/get-document.ts';
import { randomIds } from '../../src/ports/clock.ts';
import { judgmentKey } from '../../src/ports/document-storage.ts';
import { SettableClock } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';

const BASE_URL = 'http://localhost:3000/api/v1/prod';
const SECRET = 'document-url-secret-for-tests-0123456789';
const CASE_ID = 'sc-ik-1117226';

/** One real judgment of the corpus, rendered. */
async function realJudgmentPdf(): Promise<Uint8Array> {
  const database = await databases[0]!.open();
  try {
    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date('2026-11-26T00:00:00Z'), sources: [scIk50Source] });
    const row = await database.db.selectFrom('cases').selectAll().where('caseId', '=', CASE_ID).executeTakeFirstOrThrow();
    const pdf = await renderJudgmentPdf({
      caseId: row.caseId,
      caseNumber: row.caseNumber,
      courtName: row.courtName,
      title: row.title,
      decisionDate: row.decisionDate,
      judges: row.judges as string[],
      text: row.text ?? '',
    });
    return pdf.bytes;
  } finally {
    await database.close();
  }
}

function startsWithPdfMagic(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
}

function serving(storage: LocalDocumentStorage, signer: DocumentLinkSigner, clock: SettableClock): App {
  const root: App = new OpenAPIHono<AppEnv>();
  root.use('*', requestId(randomIds));
  root.onError((error, c) => renderError(c, error instanceof ApiError ? error : new ApiError('INTERNAL_ERROR')));
  const api: App = new OpenAPIHono<AppEnv>();
  registerGetDocument(api, { links: signer, documents: storage, clock });
  root.route('/api/v1/prod', api);
  return root;
}

let pdfBytes: Uint8Array;
before(async () => {
  pdfBytes = await realJudgmentPdf();
});

describe('local document storage and its serving route', () => {
  const root = mkdtempSync(join(tmpdir(), 'documents-'));
  const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));
  const signer = new DocumentLinkSigner(SECRET, clock);
  const storage = new LocalDocumentStorage({ root, publicBaseUrl: BASE_URL, signer });
  const app = serving(storage, signer, clock);
  const key = judgmentKey(CASE_ID);
  after(() => rmSync(root, { recursive: true, force: true }));

  before(async () => {
    await storage.put(key, pdfBytes, 'application/pdf');
  });

  it('stores, finds and reads back the bytes', async () => {
    assert.equal(await storage.exists(key), true);
    assert.deepEqual(await storage.get(key), pdfBytes);
    assert.equal(await storage.exists(judgmentKey('sc-ik-0')), false);
    assert.equal(await storage.get(judgmentKey('sc-ik-0')), null);
    await storage.ping();
  });

  it('downloads the PDF through a valid link, privately cached for what is left of the hour', async () => {
    const url = await storage.signedUrl(key);
    assert.ok(url.startsWith(`${BASE_URL}/documents/judgments/sc-ik-1117226.pdf?expires=`), url);
    clock.advanceSeconds(600);
    const res = await app.request(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.headers.get('content-disposition'), 'inline; filename="sc-ik-1117226.pdf"');
    assert.equal(res.headers.get('cache-control'), 'private, max-age=3000');
    const body = new Uint8Array(await res.arrayBuffer());
    assert.ok(startsWithPdfMagic(body));
    assert.deepEqual(body, pdfBytes);
  });

  it('refuses an expired link with 410', async () => {
    const url = await storage.signedUrl(key);
    clock.advanceSeconds(3600);
    const res = await app.request(url);
    assert.equal(res.status, 410);
    assert.equal(((await res.json()) as { code: string }).code, 'DOCUMENT_LINK_EXPIRED');
  });

  it('refuses a tampered signature, a moved expiry and a missing signature with 403', async () => {
    const url = new URL(await storage.signedUrl(key));
    const signature = url.searchParams.get('signature')!;
    const flipped = new URL(url);
    flipped.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 86_400));
    const unsigned = new URL(url);
    unsigned.searchParams.delete('signature');
    for (const bad of [flipped, later, unsigned]) {
      const res = await app.request(bad.toString());
      assert.equal(res.status, 403, bad.toString());
      assert.equal(((await res.json()) as { code: string }).code, 'DOCUMENT_LINK_INVALID');
    }
    assert.equal((await app.request(url.toString())).status, 200);
  });

  it("refuses another document's signature", async () => {
    const other = judgmentKey('sc-ik-1201493');
    await storage.put(other, pdfBytes, 'application/pdf');
    const borrowed = new URL(await storage.signedUrl(other));
    borrowed.pathname = new URL(await storage.signedUrl(key)).pathname;
    const res = await app.request(borrowed.toString());
    assert.equal(res.status, 403);
  });

  it('answers 404 for a signed link whose document is gone, naming no path', async () => {
    const url = await storage.signedUrl(judgmentKey('sc-ik-0'));
    const res = await app.request(url);
    assert.equal(res.status, 404);
    const text = await res.text();
    assert.match(text, /DOCUMENT_NOT_FOUND/);
    assert.equal(text.includes(root), false);
    assert.equal(text.includes('sc-ik-0'), false);
  });

  it('serves ids with characters that need encoding, and keeps every key inside the folder', async () => {
    const oddId = 'hc-../W.P.(C) 5678/2019 #?% न्याय';
    const oddKey = judgmentKey(oddId);
    assert.match(oddKey, /^judgments\/[A-Za-z0-9_%-][A-Za-z0-9._%-]*\.pdf$/);
    await storage.put(oddKey, pdfBytes, 'application/pdf');
    const res = await app.request(await storage.signedUrl(oddKey));
    assert.equal(res.status, 200);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), pdfBytes);
    assert.ok(statSync(join(root, oddKey)).isFile());
    for (const bad of ['../escape.pdf', 'judgments/../../escape.pdf', 'judgments/.hidden', 'a/b/c.pdf', '/abs.pdf', 'judgments/']) {
      await assert.rejects(storage.put(bad, pdfBytes, 'application/pdf'), /document key/, bad);
    }
  });
});

describe('openDocumentStorage without S3 settings', () => {
  it('opens the local folder with a secret kept in DATA_DIR, the same on the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'data-'));
    const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));
    try {
      const first = openDocumentStorage({ DATA_DIR: dataDir, PUBLIC_BASE_URL: BASE_URL }, clock);
      assert.equal(first.storage.backend, 'local');
      const secretFile = join(dataDir, 'secrets', 'document-url-secret');
      assert.equal(statSync(secretFile).mode & 0o777, 0o600);
      assert.ok(readFileSync(secretFile, 'utf8').trim().length >= 32);
      const url = new URL(await first.storage.signedUrl(judgmentKey(CASE_ID)));
      const again = openDocumentStorage({ DATA_DIR: dataDir, PUBLIC_BASE_URL: BASE_URL }, clock);
      const check = again.links?.check(
        judgmentKey(CASE_ID),
        Number(url.searchParams.get('expires')),
        url.searchParams.get('signature') ?? '',
      );
      assert.equal(check, 'valid');
      const otherSecret = openDocumentStorage({ DATA_DIR: dataDir, PUBLIC_BASE_URL: BASE_URL, DOCUMENT_URL_SECRET: SECRET }, clock);
      assert.equal(
        otherSecret.links?.check(judgmentKey(CASE_ID), Number(url.searchParams.get('expires')), url.searchParams.get('signature') ?? ''),
        'invalid',
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const motoImportable = spawnSync('python3', ['-c', 'import moto.server'], { stdio: 'ignore' }).status === 0;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitUntilUp(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 150; i += 1) {
    if (child.exitCode !== null) throw new Error(`moto server exited with ${child.exitCode}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('moto server did not start within 15 s');
}

describe(
  'S3 document storage against a fake S3 server (moto)',
  { skip: motoImportable ? false : 'moto is not importable (pip install "moto[server]")' },
  () => {
    const credentials = { accessKeyId: 'moto-test', secretAccessKey: 'moto-test-secret' };
    const bucket = 'court-records-documents';
    let moto: ChildProcess;
    let endpoint: string;
    let storage: S3DocumentStorage;

    before(async () => {
      const port = await freePort();
      endpoint = `http://127.0.0.1:${port}`;
      moto = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
      await waitUntilUp(endpoint, moto);
      const admin = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
      await admin.send(new CreateBucketCommand({ Bucket: bucket }));
      admin.destroy();
      storage = new S3DocumentStorage({ bucket, region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
    });
    after(() => {
      storage.close();
      moto.kill();
    });

    it('stores, finds and reads back the bytes; a missing key is null, not an error', async () => {
      const key = judgmentKey(CASE_ID);
      assert.equal(await storage.exists(key), false);
      await storage.put(key, pdfBytes, 'application/pdf');
      assert.equal(await storage.exists(key), true);
      assert.deepEqual(await storage.get(key), pdfBytes);
      assert.equal(await storage.get(judgmentKey('sc-ik-0')), null);
      await storage.ping(AbortSignal.timeout(5000));
    });

    it('hands out a presigned link that downloads the PDF with fetch', async () => {
      const key = judgmentKey(CASE_ID);
      await storage.put(key, pdfBytes, 'application/pdf');
      const url = new URL(await storage.signedUrl(key));
      // moto checks neither the signature nor the expiry of a presigned link, so its terms are read off the URL.
      assert.equal(url.searchParams.get('X-Amz-Expires'), '3600');
      assert.match(url.searchParams.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
      assert.ok(url.searchParams.get('X-Amz-Credential')?.startsWith(`${credentials.accessKeyId}/`));
      assert.equal(url.pathname, `/${bucket}/judgments/sc-ik-1117226.pdf`);
      // S3 answers with this disposition; moto ignores response overrides.
      assert.equal(url.searchParams.get('response-content-disposition'), 'inline; filename="sc-ik-1117226.pdf"');
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/pdf');
      const body = new Uint8Array(await res.arrayBuffer());
      assert.ok(startsWithPdfMagic(body));
      assert.deepEqual(body, pdfBytes);
    });

    it('keeps odd ids apart as separate objects', async () => {
      const oddKey = judgmentKey('hc-../W.P.(C) 5678/2019 #?% न्याय');
      await storage.put(oddKey, pdfBytes.subarray(0, 100), 'application/pdf');
      const res = await fetch(await storage.signedUrl(oddKey));
      assert.equal(res.status, 200);
      assert.equal((await res.arrayBuffer()).byteLength, 100);
    });

    it('keeps a prefixed storage (test mode’s) apart from the unprefixed one in the same bucket', async () => {
      const prefixed = new S3DocumentStorage({
        bucket,
        region: 'us-east-1',
        endpoint,
        forcePathStyle: true,
        credentials,
        keyPrefix: 'test-mode/',
      });
      try {
        const key = judgmentKey('sc-ik-prefixed');
        await prefixed.put(key, pdfBytes.subarray(0, 50), 'application/pdf');
        assert.equal(await prefixed.exists(key), true);
        assert.equal(await storage.exists(key), false, 'the unprefixed storage does not see it');
        assert.equal((await storage.get(`test-mode/${key}`))?.byteLength, 50, 'stored under the prefix');
        const url = new URL(await prefixed.signedUrl(key));
        assert.equal(url.pathname, `/${bucket}/test-mode/judgments/sc-ik-prefixed.pdf`);
        assert.equal((await (await fetch(url)).arrayBuffer()).byteLength, 50);
      } finally {
        prefixed.close();
      }
    });

    it('fails the ping for a bucket that does not exist', async () => {
      const missing = new S3DocumentStorage({ bucket: 'no-such-bucket', region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
      await assert.rejects(missing.ping(AbortSignal.timeout(5000)));
      missing.close();
    });

    it('is what openDocumentStorage picks when S3_BUCKET is set', async () => {
      const opened = openDocumentStorage(
        {
          DATA_DIR: tmpdir(),
          PUBLIC_BASE_URL: BASE_URL,
          S3_BUCKET: bucket,
          S3_ENDPOINT: endpoint,
          S3_REGION: 'us-east-1',
          S3_FORCE_PATH_STYLE: true,
          S3_ACCESS_KEY_ID: credentials.accessKeyId,
          S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        },
        new SettableClock(new Date()),
      );
      assert.equal(opened.storage.backend, 's3');
      assert.equal(opened.links, null);
      assert.equal(await opened.storage.exists(judgmentKey(CASE_ID)), true);
      opened.close();
      assert.throws(
        () =>
          openDocumentStorage(
            { DATA_DIR: tmpdir(), PUBLIC_BASE_URL: BASE_URL, S3_BUCKET: bucket, S3_ACCESS_KEY_ID: 'x' },
            new SettableClock(new Date()),
          ),
        /set together/,
      );
    });
  },
);
