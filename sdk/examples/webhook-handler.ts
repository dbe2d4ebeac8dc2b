import { verifyWebhook, WebhookVerificationError } from '@court-records/sdk';

// A receiver for the API's webhooks (any Fetch-style server: Deno.serve, Bun.serve, Hono,
// a Worker). Pass the raw body: re-serialised JSON does not verify.
export async function handleWebhook(request: Request, secret: string): Promise<Response> {
  const payload = await request.text();
  try {
    const event = await verifyWebhook({ payload, headers: request.headers, secret });
    switch (event.type) {
      case 'analysis.stored':
        return new Response(`analysis ${event.data.runId} of ${event.data.caseId} (${event.data.kind}) is stored`);
      case 'analysis.failed':
        return new Response(`analysis ${event.data.runId} failed; its charge was given back`);
      case 'timeline.completed':
        return new Response(`timeline ${event.data.requestId} of ${event.data.caseId} is complete`);
      case 'timeline.failed':
        return new Response(`timeline ${event.data.requestId} failed: ${event.data.errorCode ?? 'unknown'}`);
    }
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    return new Response(`refused: ${error.reason}`, { status: 400 });
  }
}
