/**
 * The API returns PDF links encrypted, so a link never sits in plain text in logs and caches
 * between the service and the caller: AES-256-CBC, key = SHA-256(caseId + caseNumber),
 * `<hex IV>:<hex ciphertext>`, UTF-8 plaintext. Web Crypto, so the same code runs in Node,
 * Deno and browsers.
 */

export class InvalidPdfLinkError extends Error {
  override readonly name = 'InvalidPdfLinkError';
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

export interface EncryptedPdfLink {
  readonly caseId: string;
  readonly caseNumber: string;
  readonly pdfUrl: string;
}

/** The plain presigned URL of a `getCasePdf` answer's data; throws InvalidPdfLinkError on anything else. */
export async function decryptPdfLink(link: EncryptedPdfLink): Promise<string> {
  const parts = link.pdfUrl.split(':');
  if (parts.length !== 2) throw new InvalidPdfLinkError('expected exactly two colon-separated parts');
  const [ivHex, cipherHex] = parts as [string, string];
  if (!/^[0-9a-fA-F]{32}$/.test(ivHex)) throw new InvalidPdfLinkError('the IV must be 16 bytes of hex');
  if (!/^(?:[0-9a-fA-F]{32})+$/.test(cipherHex)) throw new InvalidPdfLinkError('the ciphertext must be whole 16-byte blocks of hex');
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${link.caseId}${link.caseNumber}`));
  const key = await crypto.subtle.importKey('raw', digest, 'AES-CBC', false, ['decrypt']);
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-CBC', iv: hexBytes(ivHex) }, key, hexBytes(cipherHex));
    return new TextDecoder('utf-8', { fatal: true }).decode(plain);
  } catch {
    throw new InvalidPdfLinkError('it does not decrypt with this caseId and caseNumber');
  }
}
