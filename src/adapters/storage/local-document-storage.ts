/**
 * The embedded default: documents as files in a folder (DATA_DIR/documents), handed out
 * through the service's own route (GET /documents/{folder}/{name}) with an expiry and an
 * HMAC signature. Keys are exactly `folder/name` so they map onto that route and onto the
 * disk without any chance of leaving the root. Writes go to a temporary file first and are
 * renamed into place, so a reader never sees half a PDF.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DOCUMENT_LINK_TTL_SECONDS, type DocumentStorage } from '../../ports/document-storage.ts';
import type { DocumentLinkSigner } from './document-link-signer.ts';

const KEY = /^([A-Za-z0-9_-]+)\/([A-Za-z0-9_%-][A-Za-z0-9._%-]*)$/;

export interface LocalDocumentStorageOptions {
  readonly root: string;
  /** Absolute URL of the API, base path included, e.g. http://localhost:3000/api/v1/prod. */
  readonly publicBaseUrl: string;
  readonly signer: DocumentLinkSigner;
}

/** Splits a key into its folder and file name, or refuses it. */
export function parseLocalKey(key: string): { folder: string; name: string } {
  const match = KEY.exec(key);
  if (!match) throw new Error('document key must be folder/name of A-Z a-z 0-9 . _ % - and not start with a dot');
  return { folder: match[1]!, name: match[2]! };
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR');
}

export class LocalDocumentStorage implements DocumentStorage {
  readonly backend = 'local';
  private readonly baseUrl: string;

  constructor(private readonly options: LocalDocumentStorageOptions) {
    this.baseUrl = new URL(options.publicBaseUrl).toString().replace(/(?<!\/)\/+$/, '');
  }

  private pathOf(key: string): string {
    const { folder, name } = parseLocalKey(key);
    return join(this.options.root, folder, name);
  }

  async put(key: string, bytes: Uint8Array, _contentType: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(join(path, '..'), { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, bytes);
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await readFile(this.pathOf(key)));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async signedUrl(key: string, ttlSeconds = DOCUMENT_LINK_TTL_SECONDS): Promise<string> {
    const { folder, name } = parseLocalKey(key);
    const expires = this.options.signer.nowSeconds() + ttlSeconds;
    const signature = this.options.signer.sign(key, expires);
    return `${this.baseUrl}/documents/${folder}/${encodeURIComponent(name)}?expires=${expires}&signature=${signature}`;
  }

  async ping(): Promise<void> {
    await mkdir(this.options.root, { recursive: true });
    await stat(this.options.root);
  }
}
