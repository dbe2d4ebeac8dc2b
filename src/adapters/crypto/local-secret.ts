/**
 * The embedded default's key-hashing secret: made once from the CSPRNG and kept in
 * DATA_DIR (mode 0600), so keys keep verifying across restarts of a single machine.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The embedded default's admin token when ADMIN_TOKEN is unset: the admin API (and the
 * quickstart's `court-records dev seed`) work on one machine with no set-up, and only who
 * can read DATA_DIR can use it.
 */
export const ADMIN_TOKEN_FILE = (dataDir: string): string => join(dataDir, 'secrets', 'admin-token');

export function loadOrCreateSecret(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    mkdirSync(dirname(path), { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    // 'wx' refuses to overwrite: if another process won the race, read what it wrote.
    try {
      writeFileSync(path, secret, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch {
      return readFileSync(path, 'utf8').trim();
    }
  }
}

/**
 * The secret keys are hashed (and watermarks keyed) with: KEY_HASH_SECRET, else one kept in
 * DATA_DIR. The API, a worker apart and the CLI must all resolve it alike.
 */
export function keyHashSecretOf(config: { readonly KEY_HASH_SECRET?: string | undefined; readonly DATA_DIR: string }): string {
  return config.KEY_HASH_SECRET ?? loadOrCreateSecret(join(config.DATA_DIR, 'secrets', 'key-hash-secret'));
}
