/** The access rules, pure: CIDR matching (v4, v6, mapped), the refusal order, tier limits. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideAccess, type AccessSubject } from '../../src/domain/access/access.ts';
import { allowedBy, parseCidr } from '../../src/domain/access/cidr.ts';
import { limitsFor } from '../../src/domain/access/tiers.ts';
import { rule } from '../support/decider-spec.ts';

describe('CIDR allowlists', () => {
  it('matches IPv4 ranges and single addresses', () => {
    assert.equal(allowedBy(['203.0.113.0/24'], '203.0.113.255'), true);
    assert.equal(allowedBy(['203.0.113.0/24'], '203.0.114.1'), false);
    assert.equal(allowedBy(['198.51.100.7'], '198.51.100.7'), true);
    assert.equal(allowedBy(['0.0.0.0/0'], '8.8.8.8'), true);
  });

  it('matches IPv6 ranges, compressed forms and IPv4-mapped clients', () => {
    assert.equal(allowedBy(['2001:db8::/32'], '2001:db8:abcd::1'), true);
    assert.equal(allowedBy(['2001:db8::/32'], '2001:db9::1'), false);
    assert.equal(allowedBy(['::1/128'], '::1'), true);
    assert.equal(allowedBy(['203.0.113.0/24'], '::ffff:203.0.113.10'), true);
    assert.equal(allowedBy(['2001:db8::/32'], '203.0.113.10'), false);
  });

  it('rejects malformed ranges and addresses', () => {
    for (const bad of ['203.0.113.0/33', '256.1.1.1', '1.2.3', '01.2.3.4', '2001:db8::/129', '2001:::1', 'example.com', '1.2.3.4/']) {
      assert.equal(parseCidr(bad), undefined, bad);
    }
    assert.equal(allowedBy(['203.0.113.0/24'], 'not-an-ip'), false);
  });
});

describe('access decision order', () => {
  const now = '2026-11-26T10:00:00.000Z';
  const ok: AccessSubject = {
    key: { status: 'active', graceEndsAt: null },
    user: { standing: 'active', tier: 'enterprise', trial: false, apiAccess: true },
    organization: { status: 'active' },
  };
  const policy = { entitledTiers: ['enterprise'] as const };

  const access = rule(decideAccess);

  it('admits an entitled account in good standing', () => {
    access.when(ok, policy, now).thenAdmits();
  });

  it('honours a rotated key until its grace ends, then expires it', () => {
    access.when({ ...ok, key: { status: 'rotated', graceEndsAt: '2026-11-26T10:00:01.000Z' } }, policy, now).thenAdmits();
    access.when({ ...ok, key: { status: 'rotated', graceEndsAt: now } }, policy, now).thenRefuses('KeyExpired');
  });

  it('checks key, then organisation, then standing, then plan', () => {
    const worst: AccessSubject = {
      key: { status: 'revoked', graceEndsAt: null },
      user: { standing: 'suspended', tier: 'free', trial: true, apiAccess: false },
      organization: { status: 'deactivated' },
    };
    access.when(worst, policy, now).thenRefuses('KeyRevoked');
    const keyOk = { ...worst, key: ok.key };
    access.when(keyOk, policy, now).thenRefuses('OrganizationDeactivated');
    const orgOk = { ...keyOk, organization: ok.organization };
    access.when(orgOk, policy, now).thenRefuses('AccountSuspended');
    access.when({ ...orgOk, user: { ...worst.user!, standing: 'billing_inactive' } }, policy, now).thenRefuses('BillingInactive');
    access.when({ ...orgOk, user: { ...worst.user!, standing: 'active' } }, policy, now).thenRefuses('TrialAccount');
    access.when({ ...orgOk, user: { ...worst.user!, standing: 'active', trial: false } }, policy, now).thenRefuses('PlanNotEntitled');
    access.when({ ...ok, user: { ...ok.user!, apiAccess: false } }, policy, now).thenRefuses('ApiAccessNotProvisioned');
    access.when({ ...ok, user: null }, policy, now).thenRefuses('AccountNotFound');
  });

  it('lets configuration widen the entitled plans', () => {
    const payg = { ...ok, user: { ...ok.user!, tier: 'payg' as const } };
    access.when(payg, policy, now).thenRefuses('PlanNotEntitled');
    access.when(payg, { entitledTiers: ['payg', 'enterprise'] }, now).thenAdmits();
  });
});

describe('tier limits', () => {
  it('carries the spec figures and lets an account override any of them', () => {
    assert.equal(limitsFor('free').screeningRequestsPerMinute, 2);
    assert.equal(limitsFor('scale').distinctScreenedNamesPerDay, 5000);
    assert.equal(limitsFor('enterprise').distinctScreenedNamesPerDay, null);
    assert.equal(limitsFor('free').litigationChecksPerMonth, 10);
    const custom = limitsFor('enterprise', { requestsPerMinute: 5 });
    assert.equal(custom.requestsPerMinute, 5);
    assert.equal(custom.maxPageSize, limitsFor('enterprise').maxPageSize);
  });
});
