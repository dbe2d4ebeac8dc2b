/**
 * Webhook secrets: generated, sealed at rest, and the Standard Webhooks signature on the
 * sending side. A secret is `whsec_` and the base64 of 32 random bytes; the HMAC key is
 * those bytes, not the text. The signer needs the secret itself (an HMAC key cannot be
 * kept as a hash), so it is sealed with AES-256-GCM under a key derived from the
 * service's key-hash secret before it enters an event: the event log, its backups and
 * the read model hold only ciphertext (`v1.<iv>.<ciphertext+tag>`, base64url). The SDK's
 * verifier is a separate implementation (Web Crypto): the tests check one against the
 * other and against the scheme's reference vector.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { WebhookSecrets } from '../../ports/webhooks.ts';

const SECRET_PREFIX = 'whsec_';
const TAG_BYTES = 16;

export function signDelivery(input: { id: string; timestamp: number; body: string; secret: string }): string {
  if (!input.secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  const key = Buffer.from(input.secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key)
    .update(`${input.id}.${String(input.timestamp)}.${input.body}`)
    .digest('base64')}`;
}

/** A fresh `whsec_<base64 of 32 random bytes>` secret. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function webhookSecrets(serviceSecret: string): WebhookSecrets {
  // A key of its own: the key-hash secret is not used raw for a second purpose.
  const key = createHash('sha256').update(`webhook-endpoint-secrets\0${serviceSecret}`).digest();
  return {
    generate: generateWebhookSecret,
    seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed) {
      const [version, ivText, bodyText] = sealed.split('.');
      if (version !== 'v1' || !ivText || !bodyText) throw new Error('not a sealed webhook secret');
      const body = Buffer.from(bodyText, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    },
    sign: signDelivery,
  };
}
