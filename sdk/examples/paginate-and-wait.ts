import { createCourtRecordsClient, CourtRecordsConnectionError } from '@court-records/sdk';

const client = createCourtRecordsClient({
  baseUrl: process.env.COURT_RECORDS_API ?? 'http://127.0.0.1:3000/api/v1/prod',
  apiKey: process.env.COURT_RECORDS_API_KEY,
});

// Every hit of a search, page after page: the next page is fetched (and charged) only when
// the loop reaches it, so a break stops the spending.
let seen = 0;
for await (const hit of client.search.casesAutoPaginate({ query: 'union of india', limit: 2 })) {
  console.log(`hit ${++seen}: ${hit.caseId}`);
  if (seen === 5) break;
}

// An analysis answers 202 with a run; waitForAnalysis reads it as often as Retry-After allows.
const started = await client.analysis.create('sc-inabs-5861');
const analysis = await client.waitForAnalysis(started, { timeout: 5 * 60_000 });
if (analysis.data.hasAnalysis) console.log(`analysis ${analysis.data.runId}: ${analysis.data.analysis.summary.length} characters`);

// A live fetch from the court portal is a job; waitForTimeline polls it to its end.
const job = await client.timeline.request({ cnr: 'GAHC010225502018', refresh: true });
const done = await client.waitForTimeline(job);
console.log(
  `timeline ${done.data.status}: ${done.data.timeline?.hearings.length ?? 0} hearings, ${job.lastResponse.creditsCharged} credits`,
);

// A call that times out or loses its connection throws with the key it was sent with:
// retrying with that key is answered from the first call's record, never charged twice.
try {
  await client.search.cases({ query: 'bail' }, { timeout: 1, maxRetries: 0 });
} catch (error) {
  if (!(error instanceof CourtRecordsConnectionError) || error.idempotencyKey === undefined) throw error;
  const retried = await client.search.cases({ query: 'bail' }, { idempotencyKey: error.idempotencyKey });
  console.log(`retried after a ${error.reason} with the same key: ${retried.data.length} hits`);
}
