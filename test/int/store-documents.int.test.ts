/**
 * Storing judgment PDFs after ingest, on a real slice of the corpus (the two SC full-text
 * sets and the HC registry fixtures) on every test database: each full-text case gets a
 * PDF, metadata-only records get none, a re-run stores nothing and a lost file is
 * restored alone. The PDFs' text, extracted with unpdf, holds the case number and the
 * judgment's own words; rendering is byte-for-byte deterministic and survives scripts the
 * standard fonts cannot draw (the corpus' own language labels).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { extractText, getDocumentProxy } from 'unpdf';
import { renderJudgmentPdf } from '../../src/adapters/pdf/render-judgment-pdf.ts';
import { DocumentLinkSigner } from '../../src/adapters/storage/document-link-signer.ts';
import { LocalDocumentStorage } from '../../src/adapters/storage/local-document-storage.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import { scIk50Source } from '../../src/corpus/sources/sc-ik50.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { storeJudgmentDocuments, type StoreDocumentsReport } from '../../src/corpus/store-documents.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { judgmentKey, type DocumentStorage } from '../../src/ports/document-storage.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

/** Counts writes on the way to the real folder storage. */
class CountingStorage implements DocumentStorage {
  readonly backend = 'local';
  puts = 0;
  constructor(private readonly inner: DocumentStorage) {}
  async put(key: string, bytes: Uint8Array, contentType: string) {
    this.puts += 1;
    await this.inner.put(key, bytes, contentType);
  }
  get = (key: string) => this.inner.get(key);
  exists = (key: string) => this.inner.exists(key);
  signedUrl = (key: string, ttl?: number) => this.inner.signedUrl(key, ttl);
  ping = () => this.inner.ping();
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

/** About 30 words from the middle of the text, whitespace collapsed as a PDF reader shows it. */
function middlePassage(text: string): string {
  const words = text.split(/\s+/).filter((w) => w !== '');
  const start = Math.floor(words.length / 2);
  return words.slice(start, start + 30).join(' ');
}

for (const factory of databases)
  describe(`storeJudgmentDocuments on ${factory.name}`, { timeout: 300_000 }, () => {
    let database: TestDatabase;
    let root: string;
    let storage: CountingStorage;
    let first: StoreDocumentsReport;
    let fullText: string[];
    let metadataOnly: string[];

    before(async () => {
      database = await factory.open();
      await ingestCorpus({
        db: database.db,
        corpusDir,
        now: () => new Date('2026-11-26T00:00:00Z'),
        sources: [scIk50Source, scInAbsSource, ecourtsHcSource],
      });
      root = mkdtempSync(join(tmpdir(), 'stored-documents-'));
      const signer = new DocumentLinkSigner('store-documents-test-secret-0123456789', systemClock);
      storage = new CountingStorage(new LocalDocumentStorage({ root, publicBaseUrl: 'http://localhost:3000/api/v1/prod', signer }));
      const rows = await database.db.selectFrom('cases').select(['caseId', 'text']).execute();
      fullText = rows.filter((r) => r.text !== null).map((r) => r.caseId);
      metadataOnly = rows.filter((r) => r.text === null).map((r) => r.caseId);
      first = await storeJudgmentDocuments({ db: database.db, storage, now: () => new Date() });
    });
    after(async () => {
      await database.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('stores one PDF per full-text case and none for metadata-only records', async () => {
      assert.ok(fullText.length >= 100, `full-text cases: ${fullText.length}`);
      assert.ok(metadataOnly.length >= 100, `metadata-only cases: ${metadataOnly.length}`);
      assert.equal(first.considered, fullText.length);
      assert.equal(first.stored, fullText.length);
      assert.equal(first.alreadyStored, 0);
      assert.equal(storage.puts, fullText.length);
      assert.ok(first.pages >= fullText.length);
      for (const id of fullText) assert.equal(await storage.exists(judgmentKey(id)), true, id);
      for (const id of metadataOnly) assert.equal(await storage.exists(judgmentKey(id)), false, id);
      const files = readdirSync(join(root, 'judgments'));
      assert.deepEqual(files.sort(), fullText.map((id) => judgmentKey(id).slice('judgments/'.length)).sort());
    });

    it('stores nothing on a re-run and rewrites no file', async () => {
      const key = judgmentKey(fullText[0]!);
      const before = statSync(join(root, key)).mtimeMs;
      storage.puts = 0;
      const again = await storeJudgmentDocuments({ db: database.db, storage, now: () => new Date() });
      assert.equal(again.stored, 0);
      assert.equal(again.alreadyStored, fullText.length);
      assert.equal(storage.puts, 0);
      assert.equal(statSync(join(root, key)).mtimeMs, before);
    });

    it('restores only a document that went missing', async () => {
      const lost = fullText[fullText.length - 1]!;
      rmSync(join(root, judgmentKey(lost)));
      storage.puts = 0;
      const again = await storeJudgmentDocuments({ db: database.db, storage, now: () => new Date() });
      assert.equal(again.stored, 1);
      assert.equal(storage.puts, 1);
      assert.equal(await storage.exists(judgmentKey(lost)), true);
    });

    it('writes PDFs whose text holds the case number and the judgment itself', async () => {
      for (const caseId of ['sc-ik-1117226', fullText.find((id) => id.startsWith('sc-inabs-'))!]) {
        const row = await database.db
          .selectFrom('cases')
          .select(['caseNumber', 'text', 'courtName'])
          .where('caseId', '=', caseId)
          .executeTakeFirstOrThrow();
        const bytes = await storage.get(judgmentKey(caseId));
        assert.ok(bytes);
        assert.equal(Buffer.from(bytes.subarray(0, 5)).toString('latin1'), '%PDF-');
        const text = await pdfText(bytes);
        assert.ok(text.includes(row.caseNumber.replace(/\s+/g, ' ')), `${caseId}: case number ${row.caseNumber}`);
        assert.ok(text.includes(row.courtName), `${caseId}: court`);
        assert.ok(text.includes('Rendered by the Court Records Research API'), `${caseId}: notice`);
        const passage = middlePassage(row.text ?? '');
        assert.ok(passage.length > 100);
        assert.ok(text.includes(passage), `${caseId}: passage "${passage}"`);
      }
    });
  });

describe('renderJudgmentPdf', () => {
  let record: Parameters<typeof renderJudgmentPdf>[0];

  before(async () => {
    const database = await databases[0]!.open();
    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date('2026-11-26T00:00:00Z'), sources: [scIk50Source] });
    const row = await database.db.selectFrom('cases').selectAll().where('caseId', '=', 'sc-ik-1117226').executeTakeFirstOrThrow();
    await database.close();
    record = {
      caseId: row.caseId,
      caseNumber: row.caseNumber,
      courtName: row.courtName,
      title: row.title,
      decisionDate: row.decisionDate,
      judges: row.judges as string[],
      text: row.text ?? '',
    };
  });

  it('gives the same bytes for the same record, dated by the decision', async () => {
    const a = await renderJudgmentPdf(record);
    const b = await renderJudgmentPdf(record);
    assert.deepEqual(a.bytes, b.bytes);
    assert.equal(a.replacedCharacters, 0);
    const { getMeta } = await import('unpdf');
    const meta = await getMeta(await getDocumentProxy(new Uint8Array(a.bytes)));
    assert.match(String((meta.info as Record<string, unknown>).CreationDate), /^D:19870219/);
  });

  it('draws what the standard fonts cannot encode as replacements, and counts them', async () => {
    // The language labels of the SC metadata's vernacular PDF links, as the corpus prints them.
    const labels = 'हिन्दी ગુજરાતી தமிழ் اُردُو';
    // Counted in code points, as the fitter counts.
    const nonWinAnsi = Array.from(labels).filter((ch) => ch !== ' ').length;
    const rendered = await renderJudgmentPdf({ ...record, title: `${record.title ?? ''} (${labels})`, text: `${labels}\n${record.text}` });
    assert.equal(rendered.replacedCharacters, 2 * nonWinAnsi);
    const text = await pdfText(rendered.bytes);
    assert.ok(text.includes('?????'), 'replacement marks drawn');
    assert.ok(text.includes(record.caseNumber));
  });
});
