/**
 * Known answers made by the service's own code, for the Python SDK's tests to check its
 * verifier and its decryption against: webhook signatures from the sender's signer
 * (src/adapters/webhooks/signing.ts) under fresh secrets, and PDF links from the route's
 * cipher (src/http/pdf-link-cipher.ts). Made at test time, never copied into the tests.
 * `node --import tsx test/support/python-sdk-vectors.ts` prints them as JSON.
 */
import { signDelivery, webhookSecrets } from '../../src/adapters/webhooks/signing.ts';
import { encryptPdfLink } from '../../src/http/pdf-link-cipher.ts';

export interface PythonSdkVectors {
  readonly webhooks: readonly { id: string; timestamp: number; body: string; secret: string; signature: string }[];
  readonly pdfLinks: readonly { caseId: string; caseNumber: string; url: string; encrypted: string }[];
}

export function pythonSdkVectors(now: Date = new Date()): PythonSdkVectors {
  const secrets = webhookSecrets('python-sdk-vectors-key-hash-secret-of-32+ chars');
  const timestamp = Math.floor(now.getTime() / 1000);
  const bodies = [
    JSON.stringify({
      type: 'analysis.stored',
      timestamp: now.toISOString(),
      mode: 'live',
      data: { caseId: 'sc-inabs-5861', runId: 'analysis-sc-inabs-5861-1' },
    }),
    // Non-ASCII: the HMAC is over the UTF-8 bytes, not over characters.
    JSON.stringify({
      type: 'timeline.completed',
      timestamp: now.toISOString(),
      mode: 'test',
      data: { caseId: 'hc-GAHC010225502018', note: 'न्यायालय — ₹50' },
    }),
  ];
  const webhooks = bodies.map((body, i) => {
    const secret = secrets.generate();
    const id = `msg_python_vector_${String(i)}`;
    return { id, timestamp, body, secret, signature: signDelivery({ id, timestamp, body, secret }) };
  });
  const links = [
    {
      caseId: 'sc-inabs-5861',
      caseNumber: 'Civil Appeal No. 56 of 1987',
      url: 'https://documents.example.in/judgments/sc-inabs-5861.pdf?expires=1&signature=ab',
    },
    { caseId: 'hc-GAHC010225502018', caseNumber: 'AB/3142/2018', url: 'https://documents.example.in/निर्णय/AB 3142.pdf' },
  ];
  return { webhooks, pdfLinks: links.map((link) => ({ ...link, encrypted: encryptPdfLink(link.url, link.caseId, link.caseNumber) })) };
}

if (process.argv[1] === import.meta.filename) process.stdout.write(`${JSON.stringify(pythonSdkVectors())}\n`);
