/** What the research routes (search, judges, cases, PDFs and document links) need from the application. */
import type { Admission } from '../application/admission/admission.ts';
import type { IdempotencyService } from '../application/idempotency/idempotency-service.ts';
import type { CaseReader } from '../application/cases/case-reader.ts';
import type { JudgeDirectory } from '../application/judges/judge-directory.ts';
import type { SearchPages } from '../application/search/search-pages.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentLinkVerifier, DocumentStorage } from '../ports/document-storage.ts';

export interface ResearchDeps {
  readonly cases: CaseReader;
  readonly judges: JudgeDirectory;
  /** Keyword and semantic search pages, each a priced call with its paging rules. */
  readonly searchPages: SearchPages;
  readonly documents: DocumentStorage;
  /** Present when the service signs and serves document links itself (the local folder). */
  readonly documentLinks: DocumentLinkVerifier | null;
  /** Runs every fixed-price call: entitlement, balance, caps, work and charge. */
  readonly admission: Admission;
  /** Where a caller tops up; carried in every 402 body. */
  readonly topUpUrl: string;
  /** Idempotency-Key records for the charging POST routes. */
  readonly idempotency: IdempotencyService;
  /** Marks prose with the watermark of a billing account. */
  readonly watermark: (accountId: string, text: string) => string;
  /** The same mark for a long text (a judgment), as the UTF-8 bytes of its JSON string; see marked-texts.ts. */
  readonly markedJson: (accountId: string, text: string) => Promise<Uint8Array>;
  readonly clock: Clock;
}
