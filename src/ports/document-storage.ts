/**
 * Where judgment PDFs live: a folder under DATA_DIR by default, S3-compatible object
 * storage in production. Keys are derived from the case id alone, so whether a case has a
 * document is a question for the storage, not a database column. A link handed to a
 * client is an absolute URL that stops working after its time to live.
 */

/** The spec's PDF link is valid for one hour. */
export const DOCUMENT_LINK_TTL_SECONDS = 3600;

export interface DocumentStorage {
  /** 'local' or 's3', for logs and the health check. */
  readonly backend: string;
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<Uint8Array | null>;
  exists(key: string): Promise<boolean>;
  /** An absolute URL that downloads the document for `ttlSeconds` from now. */
  signedUrl(key: string, ttlSeconds?: number): Promise<string>;
  ping(signal?: AbortSignal): Promise<void>;
}

export type LinkCheck = 'valid' | 'invalid' | 'expired';

/** Checks a link the service signed itself (the local folder's serving route). */
export interface DocumentLinkVerifier {
  check(key: string, expiresAtSeconds: number, signature: string): LinkCheck;
}

/**
 * `judgments/<caseId>.pdf`, with every character outside A-Z a-z 0-9 . _ - written as
 * %XX of its UTF-8 bytes: ids are safe as file names and object keys whatever they hold,
 * and a leading dot is encoded too so no key names a hidden file or a parent folder.
 */
export function judgmentKey(caseId: string): string {
  const bytes = new TextEncoder().encode(caseId);
  let name = '';
  for (const byte of bytes) {
    const ch = String.fromCharCode(byte);
    const plain = /[A-Za-z0-9_-]/.test(ch) || (ch === '.' && name !== '');
    name += plain ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `judgments/${name}.pdf`;
}
