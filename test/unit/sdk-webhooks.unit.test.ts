/**
 * The SDK's webhook verification without IO: the Standard Webhooks reference vector, what
 * the server's own signer (node:crypto, a separate implementation) produces, and each way
 * a delivery must be refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signDelivery } from '../../src/adapters/webhooks/signing.ts';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '../../sdk/src/webhooks.ts';

// The test vector the Standard Webhooks reference libraries check against.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const AT_VECTOR = new Date(VECTOR.timestamp * 1000);

const headersOf = (id: string, timestamp: number, signature: string) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationReason> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError);
    return error.reason;
  }
  assert.fail('expected a WebhookVerificationError');
}

describe('verifyWebhook', () => {
  it('accepts the Standard Webhooks test vector and returns the parsed body', async () => {
    const event = await verifyWebhook({
      payload: VECTOR.payload,
      headers: headersOf(VECTOR.id, VECTOR.timestamp, VECTOR.signature),
      secret: VECTOR.secret,
      now: AT_VECTOR,
    });
    assert.deepEqual(event, { test: 2432232314 });
  });

  it('the server signer produces the vector signature', () => {
    const signed = signDelivery({ id: VECTOR.id, timestamp: VECTOR.timestamp, body: VECTOR.payload, secret: VECTOR.secret });
    assert.equal(signed, VECTOR.signature);
  });

  it('accepts any one of several space-separated signatures, in Fetch Headers too', async () => {
    const headers = new Headers(headersOf(VECTOR.id, VECTOR.timestamp, `v1,bm90IGl0 v2,whatever ${VECTOR.signature}`));
    const event = await verifyWebhook({
      payload: new TextEncoder().encode(VECTOR.payload),
      headers,
      secret: VECTOR.secret,
      now: AT_VECTOR,
    });
    assert.deepEqual(event, { test: 2432232314 });
  });

  it('refuses a tampered body', async () => {
    const reason = await refusal(
      verifyWebhook({
        payload: '{"test": 2432232315}',
        headers: headersOf(VECTOR.id, VECTOR.timestamp, VECTOR.signature),
        secret: VECTOR.secret,
        now: AT_VECTOR,
      }),
    );
    assert.equal(reason, 'NO_MATCHING_SIGNATURE');
  });

  it('refuses a signature that only starts with the right one', async () => {
    const headers = headersOf(VECTOR.id, VECTOR.timestamp, `${VECTOR.signature}AA`);
    assert.equal(
      await refusal(verifyWebhook({ payload: VECTOR.payload, headers, secret: VECTOR.secret, now: AT_VECTOR })),
      'NO_MATCHING_SIGNATURE',
    );
  });

  it('refuses another secret, and a changed id', async () => {
    const other = `whsec_${Buffer.from('another secret of some length').toString('base64')}`;
    const headers = headersOf(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
    assert.equal(
      await refusal(verifyWebhook({ payload: VECTOR.payload, headers, secret: other, now: AT_VECTOR })),
      'NO_MATCHING_SIGNATURE',
    );
    const renamed = headersOf('msg_other', VECTOR.timestamp, VECTOR.signature);
    assert.equal(
      await refusal(verifyWebhook({ payload: VECTOR.payload, headers: renamed, secret: VECTOR.secret, now: AT_VECTOR })),
      'NO_MATCHING_SIGNATURE',
    );
  });

  it('refuses a replay outside the tolerance, either side, and accepts at its edge', async () => {
    const input = { payload: VECTOR.payload, headers: headersOf(VECTOR.id, VECTOR.timestamp, VECTOR.signature), secret: VECTOR.secret };
    const late = new Date((VECTOR.timestamp + 301) * 1000);
    const early = new Date((VECTOR.timestamp - 301) * 1000);
    assert.equal(await refusal(verifyWebhook({ ...input, now: late })), 'TIMESTAMP_OUT_OF_TOLERANCE');
    assert.equal(await refusal(verifyWebhook({ ...input, now: early })), 'TIMESTAMP_OUT_OF_TOLERANCE');
    await verifyWebhook({ ...input, now: new Date((VECTOR.timestamp + 300) * 1000) });
    assert.equal(
      await refusal(verifyWebhook({ ...input, now: new Date((VECTOR.timestamp + 60) * 1000), toleranceSeconds: 30 })),
      'TIMESTAMP_OUT_OF_TOLERANCE',
    );
  });

  it('refuses missing headers, a malformed timestamp and a malformed secret', async () => {
    const headers = headersOf(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    assert.equal(
      await refusal(verifyWebhook({ payload: VECTOR.payload, headers: unsigned, secret: VECTOR.secret, now: AT_VECTOR })),
      'MISSING_HEADERS',
    );
    const badTime = { ...headers, 'webhook-timestamp': '1614265330.5' };
    assert.equal(
      await refusal(verifyWebhook({ payload: VECTOR.payload, headers: badTime, secret: VECTOR.secret, now: AT_VECTOR })),
      'INVALID_TIMESTAMP',
    );
    assert.equal(
      await refusal(verifyWebhook({ payload: VECTOR.payload, headers, secret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', now: AT_VECTOR })),
      'INVALID_SECRET',
    );
  });

  it('refuses a correctly signed body that is not JSON', async () => {
    const payload = 'not json';
    const signature = signDelivery({ id: 'msg_1', timestamp: VECTOR.timestamp, body: payload, secret: VECTOR.secret });
    assert.equal(
      await refusal(
        verifyWebhook({ payload, headers: headersOf('msg_1', VECTOR.timestamp, signature), secret: VECTOR.secret, now: AT_VECTOR }),
      ),
      'INVALID_PAYLOAD',
    );
  });
});
