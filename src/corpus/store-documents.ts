/**
 * After ingest: renders and stores a PDF for every case that has published text and no
 * stored document yet (metadata-only records get none). The key comes from the case id,
 * so the storage itself says what is done: a re-run checks keys, reads no text and stores
 * nothing. Ids are paged in key order and texts are read only for the cases still missing,
 * a batch at a time, because a few judgments run to half a million characters.
 */
import type { Db } from '../db/database.ts';
import { titleFromParties, type Party } from '../domain/case/case-record.ts';
import { renderJudgmentPdf, type JudgmentForPdf } from '../adapters/pdf/render-judgment-pdf.ts';
import { judgmentKey, type DocumentStorage } from '../ports/document-storage.ts';

const ID_PAGE = 500;
const TEXT_BATCH = 20;

export interface StoreDocumentsReport {
  /** Cases with published text. */
  considered: number;
  stored: number;
  alreadyStored: number;
  pages: number;
  bytes: number;
  replacedCharacters: number;
  durationMs: number;
}

export interface StoreDocumentsOptions {
  readonly db: Db;
  readonly storage: DocumentStorage;
  readonly now: () => Date;
  readonly onStored?: (caseId: string, report: StoreDocumentsReport) => void;
  /** Checked before each PDF is rendered (a long judgment's rendering holds the thread for a while). */
  readonly signal?: AbortSignal | undefined;
}

async function missingIds(storage: DocumentStorage, ids: readonly string[]): Promise<string[]> {
  const present = await Promise.all(ids.map((id) => storage.exists(judgmentKey(id))));
  return ids.filter((_, i) => !present[i]);
}

async function loadJudgments(db: Db, ids: readonly string[]): Promise<JudgmentForPdf[]> {
  const rows = await db
    .selectFrom('cases')
    .select(['caseId', 'caseNumber', 'courtName', 'title', 'petitioners', 'respondents', 'judges', 'decisionDate', 'text'])
    .where('caseId', 'in', ids)
    .where('text', 'is not', null)
    .orderBy('caseId')
    .execute();
  return rows.map((row) => ({
    caseId: row.caseId,
    caseNumber: row.caseNumber,
    courtName: row.courtName,
    title: row.title ?? titleFromParties(row.petitioners as Party[], row.respondents as Party[]),
    decisionDate: row.decisionDate,
    judges: row.judges as string[],
    text: row.text ?? '',
  }));
}

export async function storeJudgmentDocuments(options: StoreDocumentsOptions): Promise<StoreDocumentsReport> {
  const { db, storage, now } = options;
  const started = now().getTime();
  const report: StoreDocumentsReport = {
    considered: 0,
    stored: 0,
    alreadyStored: 0,
    pages: 0,
    bytes: 0,
    replacedCharacters: 0,
    durationMs: 0,
  };
  let after = '';
  for (;;) {
    const page = await db
      .selectFrom('cases')
      .select('caseId')
      .where('text', 'is not', null)
      .where('caseId', '>', after)
      .orderBy('caseId')
      .limit(ID_PAGE)
      .execute();
    if (page.length === 0) break;
    after = page[page.length - 1]!.caseId;
    const ids = page.map((r) => r.caseId);
    const missing = await missingIds(storage, ids);
    report.considered += ids.length;
    report.alreadyStored += ids.length - missing.length;
    for (let i = 0; i < missing.length; i += TEXT_BATCH) {
      for (const judgment of await loadJudgments(db, missing.slice(i, i + TEXT_BATCH))) {
        options.signal?.throwIfAborted();
        const pdf = await renderJudgmentPdf(judgment);
        await storage.put(judgmentKey(judgment.caseId), pdf.bytes, 'application/pdf');
        report.stored += 1;
        report.pages += pdf.pages;
        report.bytes += pdf.bytes.length;
        report.replacedCharacters += pdf.replacedCharacters;
        options.onStored?.(judgment.caseId, report);
      }
    }
  }
  report.durationMs = now().getTime() - started;
  return report;
}
