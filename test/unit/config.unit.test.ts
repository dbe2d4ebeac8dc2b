/** Config: defaults select the embedded stack; bad values fail fast naming every variable. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';

describe('config', () => {
  it('defaults to the embedded stack', () => {
    const config = loadConfig({});
    assert.equal(config.DATABASE_URL, undefined);
    assert.equal(config.MEILI_URL, undefined);
    assert.equal(config.PORT, 3000);
    assert.equal(config.DATA_DIR, './data');
    assert.equal(config.API_BASE_PATH, '/api/v1/prod');
  });

  it('treats empty service URLs as unset and splits CORS origins', () => {
    const config = loadConfig({ DATABASE_URL: '', CORS_ORIGINS: 'https://a.in, https://b.in' });
    assert.equal(config.DATABASE_URL, undefined);
    assert.deepEqual(config.CORS_ORIGINS, ['https://a.in', 'https://b.in']);
  });

  it('names every bad variable in one message', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url', ADMIN_TOKEN: 'short' }),
      (e: Error) => ['PORT', 'DATABASE_URL', 'ADMIN_TOKEN'].every((name) => e.message.includes(name)),
    );
  });
});
