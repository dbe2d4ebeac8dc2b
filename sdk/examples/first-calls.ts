import { createCourtRecordsClient, CourtRecordsError } from '@court-records/sdk';

const client = createCourtRecordsClient({
  baseUrl: process.env.COURT_RECORDS_API ?? 'http://127.0.0.1:3000/api/v1/prod',
  apiKey: process.env.COURT_RECORDS_API_KEY,
});

// A charged call: retried safely (the SDK sends an Idempotency-Key), typed from the OpenAPI document.
const search = await client.searchCases({ body: { query: 'union of india', limit: 3 } });
for (const hit of search.body.data) console.log(`${hit.caseId}  ${hit.title ?? '(title withheld)'}`);
console.log(`charged ${search.creditsCharged} credits, ${search.creditsRemaining} left`);

// Refusals are CourtRecordsError, typed by code.
try {
  await client.getCase({ params: { path: { id: 'no-such-case' } } });
} catch (error) {
  if (!(error instanceof CourtRecordsError) || !error.is('CASE_NOT_FOUND')) throw error;
  console.log(`refused: ${error.code} (request ${error.requestId})`);
}

// PDF links arrive encrypted; casePdfUrl decrypts them.
const first = search.body.data[0];
if (first) {
  try {
    const { url, expiresAt } = await client.casePdfUrl(first.caseId);
    console.log(`PDF of ${first.caseId} until ${expiresAt}: ${new URL(url).pathname}`);
  } catch (error) {
    if (!(error instanceof CourtRecordsError) || !error.is('PDF_NOT_STORED')) throw error;
    console.log(`no PDF held for ${first.caseId}`);
  }
}
