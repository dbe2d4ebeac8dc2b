/**
 * The webhook-endpoints aggregate without IO: given events, when a command, then events or
 * a refusal. Also the URL and address rules the aggregate and the sender share.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkEndpointUrl,
  decideWebhookEndpoints,
  evolveWebhookEndpoints,
  initialWebhookEndpoints,
  MAX_ENDPOINTS_PER_ACCOUNT,
  type WebhookEndpointsCommand,
  type WebhookEndpointsEvent,
} from '../../src/domain/webhook/webhook-endpoints.ts';
import { spec } from '../support/decider-spec.ts';

const AT = '2026-03-02T09:00:00.000Z';
const SECRET = { sealed: 'v1.sealed', hint: 'whsec_…abcd' };

const register = (
  endpointId: string,
  over: Partial<Extract<WebhookEndpointsCommand, { type: 'RegisterEndpoint' }>> = {},
): WebhookEndpointsCommand => ({
  type: 'RegisterEndpoint',
  accountId: 'acct-1',
  endpointId,
  url: 'https://hooks.example.in/court-records',
  eventTypes: ['analysis.stored'],
  mode: 'live',
  secret: SECRET,
  allowInsecureUrls: false,
  at: AT,
  ...over,
});

const registered = (endpointId: string): WebhookEndpointsEvent => ({
  type: 'WebhookEndpointRegistered',
  data: {
    accountId: 'acct-1',
    endpointId,
    url: 'https://hooks.example.in/',
    eventTypes: ['analysis.stored'],
    secret: SECRET,
    registeredAt: AT,
  },
});

const endpoints = spec({ decide: decideWebhookEndpoints, evolve: evolveWebhookEndpoints, initialState: initialWebhookEndpoints });

describe('webhook endpoints aggregate', () => {
  it('registers an https endpoint with its event types in canonical order, without a fragment, for the mode asked', () => {
    endpoints
      .given([])
      .when(register('whe_1', { url: 'https://hooks.example.in/x#frag', eventTypes: ['timeline.failed', 'analysis.stored'], mode: 'test' }))
      .then([
        {
          type: 'WebhookEndpointRegistered',
          data: {
            accountId: 'acct-1',
            endpointId: 'whe_1',
            url: 'https://hooks.example.in/x',
            eventTypes: ['analysis.stored', 'timeline.failed'],
            mode: 'test',
            secret: SECRET,
            registeredAt: AT,
          },
        },
      ]);
  });

  it(`refuses the endpoint after the ${String(MAX_ENDPOINTS_PER_ACCOUNT)}th, and takes one again after a removal`, () => {
    const full = Array.from({ length: MAX_ENDPOINTS_PER_ACCOUNT }, (_, i) => registered(`whe_${String(i)}`));
    endpoints.given(full).when(register('whe_new')).thenRefuses({ tag: 'EndpointLimit', max: MAX_ENDPOINTS_PER_ACCOUNT });
    const removed: WebhookEndpointsEvent = {
      type: 'WebhookEndpointRemoved',
      data: { accountId: 'acct-1', endpointId: 'whe_0', removedAt: AT },
    };
    endpoints
      .given([...full, removed])
      .when(register('whe_new'))
      .thenEvents();
  });

  it('refuses http, credentials, loopback, private and metadata addresses unless insecure URLs are allowed', () => {
    const refusal = (url: string) => endpoints.given([]).when(register('whe_1', { url }));
    refusal('http://hooks.example.in/').thenRefuses({ tag: 'InvalidUrl', reason: 'scheme' });
    refusal('ftp://hooks.example.in/').thenRefuses({ tag: 'InvalidUrl', reason: 'scheme' });
    refusal('https://user:pw@hooks.example.in/').thenRefuses({ tag: 'InvalidUrl', reason: 'credentials' });
    for (const host of [
      '127.0.0.1',
      'localhost',
      '10.1.2.3',
      '169.254.169.254',
      '[::1]',
      '[fd00::1]',
      '192.168.1.1',
      '[::ffff:127.0.0.1]',
    ]) {
      refusal(`https://${host}/hook`).thenRefuses({ tag: 'InvalidUrl', reason: 'non-public-address' });
    }
    refusal('not a url').thenRefuses({ tag: 'InvalidUrl', reason: 'malformed' });
    endpoints
      .given([])
      .when(register('whe_1', { url: 'http://127.0.0.1:8080/hook', allowInsecureUrls: true }))
      .thenEvents();
  });

  it('refuses an endpoint with no known event type', () => {
    endpoints
      .given([])
      .when(register('whe_1', { eventTypes: [] }))
      .thenRefuses({ tag: 'NoEventTypes' });
  });

  it('rotates a secret, the previous one valid for 24 more hours', () => {
    const next = { sealed: 'v1.next', hint: 'whsec_…wxyz' };
    endpoints
      .given([registered('whe_1')])
      .when({ type: 'RotateSecret', accountId: 'acct-1', endpointId: 'whe_1', secret: next, at: AT })
      .then([
        {
          type: 'WebhookSecretRotated',
          data: { accountId: 'acct-1', endpointId: 'whe_1', secret: next, previousValidUntil: '2026-03-03T09:00:00.000Z', rotatedAt: AT },
        },
      ]);
  });

  it('refuses to rotate or remove an endpoint the account does not have (or no longer has)', () => {
    const removed: WebhookEndpointsEvent = {
      type: 'WebhookEndpointRemoved',
      data: { accountId: 'acct-1', endpointId: 'whe_1', removedAt: AT },
    };
    const rotate: WebhookEndpointsCommand = { type: 'RotateSecret', accountId: 'acct-1', endpointId: 'whe_1', secret: SECRET, at: AT };
    const remove: WebhookEndpointsCommand = { type: 'RemoveEndpoint', accountId: 'acct-1', endpointId: 'whe_1', at: AT };
    endpoints.given([]).when(rotate).thenRefuses({ tag: 'EndpointNotFound' });
    endpoints
      .given([registered('whe_1'), removed])
      .when(remove)
      .thenRefuses({ tag: 'EndpointNotFound' });
    endpoints
      .given([registered('whe_1')])
      .when(remove)
      .then([removed]);
  });
});

describe('endpoint addresses', () => {
  it('admits loopback in the development setting, and never private, link-local or other non-public ranges', () => {
    // 0x7f.1 and 2130706433 are loopback once the URL parser has read them.
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost:8080/hook',
      'http://[::1]:8080/hook',
      'http://[::ffff:127.0.0.1]/h',
      'http://0x7f.1/h',
      'http://2130706433/h',
    ]) {
      assert.equal(checkEndpointUrl(url, true).ok, true, url);
    }
    for (const host of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '[::]',
      '[fe80::1]',
      '[fd00::1]',
      '[::ffff:10.0.0.1]',
      '[::ffff:169.254.169.254]',
      '224.0.0.1',
    ]) {
      assert.deepEqual(checkEndpointUrl(`http://${host}/hook`, true), { ok: false, reason: 'non-public-address' }, host);
    }
    for (const host of ['0x7f.1', '2130706433', '[::ffff:7f00:1]', 'app.localhost']) {
      assert.deepEqual(checkEndpointUrl(`https://${host}/hook`, false), { ok: false, reason: 'non-public-address' }, host);
    }
  });

  it('checks URL length', () => {
    assert.deepEqual(checkEndpointUrl(`https://hooks.example.in/${'a'.repeat(2048)}`, false), { ok: false, reason: 'too-long' });
  });
});
