/**
 * The spec's PDF link encryption: AES-256-CBC with the SHA-256 of caseId followed by
 * caseNumber as the key, a fresh random 16-byte IV per call, UTF-8 plaintext, written as
 * `<hex IV>:<hex ciphertext>`. Both ids are in the response, so this keeps the link out
 * of logs and caches along the way rather than from the client. `decryptPdfLink` is what
 * a client does, kept here for tests and tooling; it refuses anything not of that form.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const IV_BYTES = 16;

export class InvalidPdfLinkError extends Error {
  constructor(reason: string) {
    super(`invalid encrypted PDF link: ${reason}`);
    this.name = 'InvalidPdfLinkError';
  }
}

function keyFor(caseId: string, caseNumber: string): Buffer {
  return createHash('sha256').update(`${caseId}${caseNumber}`, 'utf8').digest();
}

export function encryptPdfLink(url: string, caseId: string, caseNumber: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-cbc', keyFor(caseId, caseNumber), iv);
  const ciphertext = Buffer.concat([cipher.update(url, 'utf8'), cipher.final()]);
  return `${iv.toString('hex')}:${ciphertext.toString('hex')}`;
}

export function decryptPdfLink(value: string, caseId: string, caseNumber: string): string {
  const parts = value.split(':');
  if (parts.length !== 2) throw new InvalidPdfLinkError('expected exactly two colon-separated parts');
  const [ivHex, cipherHex] = parts as [string, string];
  if (!/^[0-9a-fA-F]{32}$/.test(ivHex)) throw new InvalidPdfLinkError('the IV must be 16 bytes of hex');
  if (!/^(?:[0-9a-fA-F]{32})+$/.test(cipherHex)) throw new InvalidPdfLinkError('the ciphertext must be whole 16-byte blocks of hex');
  const decipher = createDecipheriv('aes-256-cbc', keyFor(caseId, caseNumber), Buffer.from(ivHex, 'hex'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(cipherHex, 'hex')), decipher.final()]).toString('utf8');
  } catch {
    throw new InvalidPdfLinkError('it does not decrypt with this caseId and caseNumber');
  }
}
