import { createCourtRecordsClient, CourtRecordsError, NotFoundError } from '@court-records/sdk';

const client = createCourtRecordsClient({
  baseUrl: process.env.COURT_RECORDS_API ?? 'http://127.0.0.1:3000/api/v1/prod',
  apiKey: process.env.COURT_RECORDS_API_KEY,
});

// A charged call: retried safely (the SDK sends an Idempotency-Key), typed from the OpenAPI document.
const search = await client.search.cases({ query: 'union of india', limit: 3 });
for (const hit of search.data) console.log(`${hit.caseId}  ${hit.title ?? '(title withheld)'}`);
const { creditsCharged, creditsRemaining } = search.lastResponse;
console.log(`charged ${creditsCharged} credits, ${creditsRemaining} left`);

// Refusals are typed errors: a class per kind, and `code` to branch on.
try {
  await client.cases.get('no-such-case');
} catch (error) {
  if (!(error instanceof NotFoundError)) throw error;
  console.log(`refused: ${error.code} (request ${error.requestId})`);
}

// PDF links arrive encrypted; pdfUrl decrypts them.
const first = search.data[0];
if (first) {
  try {
    const { url, expiresAt } = await client.cases.pdfUrl(first.caseId);
    console.log(`PDF of ${first.caseId} until ${expiresAt}: ${new URL(url).pathname}`);
  } catch (error) {
    if (!(error instanceof CourtRecordsError) || !error.is('PDF_NOT_STORED')) throw error;
    console.log(`no PDF held for ${first.caseId}`);
  }
}
