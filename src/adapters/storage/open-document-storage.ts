/**
 * Chooses the document storage from the configuration: S3 (or an S3-compatible server)
 * when S3_BUCKET is set, else the local folder under DATA_DIR whose links the service
 * signs and serves itself. Only the local choice returns a link verifier, so the serving
 * route exists only where it has something to serve.
 */
import { join } from 'node:path';
import type { Clock } from '../../ports/clock.ts';
import type { DocumentLinkVerifier, DocumentStorage } from '../../ports/document-storage.ts';
import { loadOrCreateSecret } from '../crypto/local-secret.ts';
import { DocumentLinkSigner } from './document-link-signer.ts';
import { LocalDocumentStorage } from './local-document-storage.ts';
import { S3DocumentStorage } from './s3-document-storage.ts';

export interface DocumentStorageSettings {
  readonly DATA_DIR: string;
  /** Absolute URL of the API with its base path, used in the local folder's links. */
  readonly PUBLIC_BASE_URL: string;
  readonly DOCUMENT_URL_SECRET?: string | undefined;
  readonly S3_BUCKET?: string | undefined;
  readonly S3_REGION?: string | undefined;
  readonly S3_ENDPOINT?: string | undefined;
  readonly S3_FORCE_PATH_STYLE?: boolean | undefined;
  readonly S3_ACCESS_KEY_ID?: string | undefined;
  readonly S3_SECRET_ACCESS_KEY?: string | undefined;
  /** Put before every object key in the bucket; unset: none (the live service's). */
  readonly S3_KEY_PREFIX?: string | undefined;
}

export interface OpenedDocumentStorage {
  readonly storage: DocumentStorage;
  /** Set for the local folder only: S3 checks its own presigned links. */
  readonly links: DocumentLinkVerifier | null;
  close(): void;
}

/** The local folder's documents under a DATA_DIR: where a deployment mounts the volume it shares. */
export function localDocumentsDir(dataDir: string): string {
  return join(dataDir, 'documents');
}

export function openDocumentStorage(settings: DocumentStorageSettings, clock: Clock): OpenedDocumentStorage {
  if (settings.S3_BUCKET) {
    const { S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = settings;
    if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
      throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
    }
    const storage = new S3DocumentStorage({
      bucket: settings.S3_BUCKET,
      region: settings.S3_REGION ?? 'us-east-1',
      ...(settings.S3_ENDPOINT ? { endpoint: settings.S3_ENDPOINT } : {}),
      forcePathStyle: settings.S3_FORCE_PATH_STYLE ?? false,
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      ...(settings.S3_KEY_PREFIX ? { keyPrefix: settings.S3_KEY_PREFIX } : {}),
    });
    return { storage, links: null, close: () => storage.close() };
  }
  const secret = settings.DOCUMENT_URL_SECRET ?? loadOrCreateSecret(join(settings.DATA_DIR, 'secrets', 'document-url-secret'));
  const signer = new DocumentLinkSigner(secret, clock);
  const storage = new LocalDocumentStorage({ root: localDocumentsDir(settings.DATA_DIR), publicBaseUrl: settings.PUBLIC_BASE_URL, signer });
  return { storage, links: signer, close: () => undefined };
}
