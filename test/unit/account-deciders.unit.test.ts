/** Given events, when a command, then events or a tagged error: the account deciders, no IO. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideApiKey,
  evolveApiKey,
  initialApiKey,
  MAX_KEY_NAME_LENGTH,
  rotatedName,
  type ApiKeyEvent,
} from '../../src/domain/api-key/api-key.ts';
import { fold } from '../../src/domain/decider.ts';
import {
  decideOrganization,
  evolveOrganization,
  initialOrganization,
  type OrganizationEvent,
} from '../../src/domain/organization/organization.ts';
import { decideUser, evolveUser, initialUser, type UserProfile } from '../../src/domain/user/user.ts';

const key = { keyId: 'key_1', userId: 'usr_1', organizationId: 'org_1', name: 'production', keyHash: 'h', displayKey: 'crk_live...Ab12' };

describe('API key decider', () => {
  const created: ApiKeyEvent = { type: 'ApiKeyCreated', data: { ...key, createdAt: '2026-11-26T00:00:00.000Z', rotatedFrom: null } };

  it('rotates an active key into a 24-hour grace window', () => {
    const state = fold(evolveApiKey, initialApiKey, [created]);
    const decision = decideApiKey({ type: 'RotateApiKey', keyId: 'key_1', replacedBy: 'key_2', at: '2026-11-26T10:00:00.000Z' }, state);
    assert.deepEqual(decision, {
      ok: true,
      events: [
        {
          type: 'ApiKeyRotated',
          data: { keyId: 'key_1', replacedBy: 'key_2', rotatedAt: '2026-11-26T10:00:00.000Z', graceEndsAt: '2026-11-27T10:00:00.000Z' },
        },
      ],
    });
  });

  it('refuses to rotate a key twice or one that does not exist', () => {
    const rotated = fold(evolveApiKey, initialApiKey, [
      created,
      { type: 'ApiKeyRotated', data: { keyId: 'key_1', replacedBy: 'key_2', rotatedAt: 'x', graceEndsAt: 'y' } },
    ]);
    assert.deepEqual(decideApiKey({ type: 'RotateApiKey', keyId: 'key_1', replacedBy: 'key_3', at: 'z' }, rotated), {
      ok: false,
      error: { tag: 'KeyNotActive' },
    });
    assert.deepEqual(decideApiKey({ type: 'RotateApiKey', keyId: 'key_9', replacedBy: 'key_3', at: 'z' }, initialApiKey), {
      ok: false,
      error: { tag: 'KeyNotFound' },
    });
  });

  it('rotation always works: the replacement is named with " (rotated)" and never outgrows the name cap', () => {
    assert.equal(rotatedName('Research notebook'), 'Research notebook (rotated)');
    let name = 'x'.repeat(MAX_KEY_NAME_LENGTH);
    for (let i = 0; i < 20; i += 1) {
      name = rotatedName(name);
      assert.ok(name.length <= MAX_KEY_NAME_LENGTH, `rotation ${String(i + 1)}: ${String(name.length)} characters`);
      assert.ok(name.endsWith(' (rotated)'));
      const replacement = decideApiKey(
        { type: 'CreateApiKey', key: { ...key, name }, at: '2026-11-26T10:00:00.000Z', rotatedFrom: 'key_old' },
        initialApiKey,
      );
      assert.ok(replacement.ok, `rotation ${String(i + 1)} is accepted`);
    }
  });

  it('revokes once; revoking again records nothing', () => {
    const state = fold(evolveApiKey, initialApiKey, [created]);
    const first = decideApiKey({ type: 'RevokeApiKey', keyId: 'key_1', by: 'usr_1', at: 't' }, state);
    assert.ok(first.ok && first.events.length === 1);
    const revoked = fold(evolveApiKey, state, first.events);
    assert.deepEqual(decideApiKey({ type: 'RevokeApiKey', keyId: 'key_1', by: 'usr_1', at: 't2' }, revoked), { ok: true, events: [] });
  });
});

describe('organisation decider', () => {
  const created: OrganizationEvent = {
    type: 'OrganizationCreated',
    data: { organizationId: 'org_1', name: 'Firm', allowlist: [], strictAllowlist: false },
  };

  it('refuses an allowlist entry that is not an address or CIDR range', () => {
    const decision = decideOrganization(
      { type: 'SetAllowlist', organizationId: 'org_1', allowlist: ['10.0.0.0/8', 'office'], strictAllowlist: true },
      fold(evolveOrganization, initialOrganization, [created]),
    );
    assert.deepEqual(decision, { ok: false, error: { tag: 'InvalidCidr', value: 'office' } });
  });

  it('deactivates once, and then refuses allowlist changes', () => {
    const state = fold(evolveOrganization, initialOrganization, [
      created,
      { type: 'OrganizationDeactivated', data: { organizationId: 'org_1' } },
    ]);
    assert.deepEqual(decideOrganization({ type: 'DeactivateOrganization', organizationId: 'org_1' }, state), { ok: true, events: [] });
    assert.deepEqual(decideOrganization({ type: 'SetAllowlist', organizationId: 'org_1', allowlist: [], strictAllowlist: false }, state), {
      ok: false,
      error: { tag: 'OrganizationDeactivated' },
    });
  });
});

describe('user decider', () => {
  const profile: UserProfile = {
    userId: 'usr_1',
    email: 'Priya.Sharma@LawFirm.example',
    name: ' Priya Sharma ',
    tier: 'enterprise',
    organizationId: 'org_1',
    role: 'ORG_ADMIN',
    trial: false,
    emailVerified: true,
    apiAccess: true,
    passwordHash: null,
    limitOverrides: {},
  };

  it('registers with a normalised email and name', () => {
    const decision = decideUser({ type: 'RegisterUser', profile, organization: 'active' }, initialUser);
    assert.ok(decision.ok);
    const event = decision.events[0];
    assert.ok(event?.type === 'UserRegistered');
    assert.equal(event.data.email, 'priya.sharma@lawfirm.example');
    assert.equal(event.data.name, 'Priya Sharma');
  });

  it('refuses an admin without an organisation, a missing or deactivated organisation, and a bad email', () => {
    assert.deepEqual(
      decideUser({ type: 'RegisterUser', profile: { ...profile, organizationId: null }, organization: 'none' }, initialUser),
      {
        ok: false,
        error: { tag: 'AdminNeedsOrganization' },
      },
    );
    assert.deepEqual(decideUser({ type: 'RegisterUser', profile, organization: 'none' }, initialUser), {
      ok: false,
      error: { tag: 'OrganizationNotFound' },
    });
    assert.deepEqual(decideUser({ type: 'RegisterUser', profile, organization: 'deactivated' }, initialUser), {
      ok: false,
      error: { tag: 'OrganizationDeactivated' },
    });
    assert.deepEqual(decideUser({ type: 'RegisterUser', profile: { ...profile, email: 'nobody' }, organization: 'active' }, initialUser), {
      ok: false,
      error: { tag: 'InvalidEmail' },
    });
  });

  it('records a standing change only when it changes', () => {
    const state = fold(evolveUser, initialUser, [{ type: 'UserRegistered', data: profile }]);
    assert.deepEqual(decideUser({ type: 'SetStanding', userId: 'usr_1', standing: 'active' }, state), { ok: true, events: [] });
    const suspended = decideUser({ type: 'SetStanding', userId: 'usr_1', standing: 'suspended' }, state);
    assert.ok(suspended.ok && suspended.events.length === 1);
  });
});
