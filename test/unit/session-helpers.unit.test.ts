/**
 * The pure parts of dashboard sessions: token generation and hashing, the HTTPS decision
 * behind the cookie's Secure flag, the CSRF comparison, and how account errors map to
 * codes on the settings routes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actorFor } from '../../src/application/sessions/session-service.ts';
import { randomToken, sha256Hex } from '../../src/application/sessions/tokens.ts';
import { ApiError } from '../../src/http/api-error.ts';
import { accountError } from '../../src/http/account-errors.ts';
import { requestIsHttps, sameToken } from '../../src/http/routes/settings/session-support.ts';

describe('session tokens', () => {
  it('are 43 base64url characters (32 bytes) and do not repeat', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomToken()));
    assert.equal(tokens.size, 1000);
    for (const token of tokens) assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  });

  it('are stored as lower-case hex SHA-256', async () => {
    assert.equal(await sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(await sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('requestIsHttps', () => {
  it('trusts the request URL scheme', () => {
    assert.equal(requestIsHttps('https://dashboard.example/api/settings/login', undefined, false), true);
    assert.equal(requestIsHttps('http://dashboard.example/api/settings/login', undefined, true), false);
  });

  it('reads X-Forwarded-Proto only behind a trusted proxy, taking the first hop', () => {
    const url = 'http://10.0.0.5/api/settings/login';
    assert.equal(requestIsHttps(url, 'https', false), false);
    assert.equal(requestIsHttps(url, 'https', true), true);
    assert.equal(requestIsHttps(url, 'HTTPS', true), true);
    assert.equal(requestIsHttps(url, 'https, http', true), true);
    assert.equal(requestIsHttps(url, 'http, https', true), false);
    assert.equal(requestIsHttps(url, '', true), false);
  });
});

describe('sameToken', () => {
  it('is true only for identical strings', () => {
    assert.equal(sameToken('abc', 'abc'), true);
    assert.equal(sameToken('abd', 'abc'), false);
    assert.equal(sameToken('ab', 'abc'), false);
    assert.equal(sameToken('', 'abc'), false);
    assert.equal(sameToken('', ''), true);
  });
});

describe('actorFor', () => {
  it('acts as the session user, with role and organisation', () => {
    const user = {
      userId: 'usr_1',
      email: 'a@b.example',
      role: 'ORG_ADMIN' as const,
      organizationId: 'org_1',
      tier: 'enterprise' as const,
    };
    assert.deepEqual(actorFor(user), { kind: 'user', userId: 'usr_1', role: 'ORG_ADMIN', organizationId: 'org_1' });
  });
});

describe('accountError', () => {
  const code = (error: Error) => (error instanceof ApiError ? error.code : 'plain Error');

  it('maps the refusals the settings routes can meet to their codes', () => {
    assert.equal(code(accountError({ tag: 'EmailNotVerified' })), 'EMAIL_NOT_VERIFIED');
    assert.equal(code(accountError({ tag: 'KeyLimitReached', limit: 2 })), 'API_KEY_LIMIT_REACHED');
    assert.match(accountError({ tag: 'KeyLimitReached', limit: 2 }).message, /\(2\)/);
    assert.equal(code(accountError({ tag: 'KeyNotFound' })), 'API_KEY_NOT_FOUND');
    assert.equal(code(accountError({ tag: 'KeyNotActive' })), 'API_KEY_NOT_ACTIVE');
    assert.equal(code(accountError({ tag: 'InvalidName' })), 'VALIDATION_ERROR');
  });

  it('maps operator refusals, and treats an id collision as a defect (a 500, logged)', () => {
    assert.equal(code(accountError({ tag: 'EmailTaken' })), 'EMAIL_TAKEN');
    assert.equal(code(accountError({ tag: 'InvalidCidr', value: '10.0.0.0/33' })), 'VALIDATION_ERROR');
    assert.equal(code(accountError({ tag: 'CaseNotFound' })), 'CASE_NOT_FOUND');
    assert.equal(code(accountError({ tag: 'KeyExists' })), 'plain Error');
  });
});
