/**
 * Documents in S3 or an S3-compatible server (MinIO, Ceph, R2...): links are presigned
 * GET URLs that S3 itself honours until they expire, so downloads never pass through the
 * API. Path-style addressing is an option because most self-hosted servers need it. The
 * bucket is expected to exist; creating buckets is an operator's job, not the service's.
 */
import {
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { DOCUMENT_LINK_TTL_SECONDS, type DocumentStorage } from '../../ports/document-storage.ts';

export interface S3DocumentStorageOptions {
  readonly bucket: string;
  readonly region: string;
  /** Set for S3-compatible servers; unset means AWS itself. */
  readonly endpoint?: string;
  readonly forcePathStyle?: boolean;
  /** Unset means the SDK's default chain (environment, profile, instance role). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Put before every key: test mode keeps its documents under its own prefix of the live bucket. */
  readonly keyPrefix?: string;
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof NoSuchKey ||
    error instanceof NotFound ||
    (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)
  );
}

export class S3DocumentStorage implements DocumentStorage {
  readonly backend = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3DocumentStorageOptions) {
    this.bucket = options.bucket;
    this.prefix = options.keyPrefix ?? '';
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials ? { credentials: options.credentials } : {}),
    });
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: bytes, ContentType: contentType }));
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
      return object.Body ? await object.Body.transformToByteArray() : new Uint8Array();
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async signedUrl(key: string, ttlSeconds = DOCUMENT_LINK_TTL_SECONDS): Promise<string> {
    const name = key.slice(key.lastIndexOf('/') + 1).replace(/[^A-Za-z0-9._-]/g, '_');
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.prefix + key,
      ResponseContentDisposition: `inline; filename="${name}"`,
    });
    return getSignedUrl(this.client, command, { expiresIn: ttlSeconds });
  }

  async ping(signal?: AbortSignal): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), signal ? { abortSignal: signal } : {});
  }

  close(): void {
    this.client.destroy();
  }
}
