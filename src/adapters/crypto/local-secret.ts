/**
 * The embedded default's key-hashing secret: made once from the CSPRNG and kept in
 * DATA_DIR (mode 0600), so keys keep verifying across restarts of a single machine.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

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
