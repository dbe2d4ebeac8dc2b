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
import {
  decideOrganization,
  evolveOrganization,
  initialOrganization,
  type OrganizationEvent,
} from '../../src/domain/organization/organization.ts';
import { decideUser, evolveUser, initialUser, type UserProfile } from '../../src/domain/user/user.ts';
import { spec } from '../support/decider-spec.ts';

const key = { keyId: 'key_1', userId: 'usr_1', organizationId: 'org_1', name: 'production', keyHash: 'h', displayKey: 'crk_live...Ab12' };

describe('API key decider', () => {
  const apiKey = spec({ decide: decideApiKey, evolve: evolveApiKey, initialState: initialApiKey });
  const created: ApiKeyEvent = { type: 'ApiKeyCreated', data: { ...key, createdAt: '2026-11-26T00:00:00.000Z', rotatedFrom: null } };

  it('rotates an active key into a 24-hour grace window', () => {
    apiKey
      .given([created])
      .when({ type: 'RotateApiKey', keyId: 'key_1', replacedBy: 'key_2', at: '2026-11-26T10:00:00.000Z' })
      .then([
        {
          type: 'ApiKeyRotated',
          data: { keyId: 'key_1', replacedBy: 'key_2', rotatedAt: '2026-11-26T10:00:00.000Z', graceEndsAt: '2026-11-27T10:00:00.000Z' },
        },
      ]);
  });

  it('refuses to rotate a key twice or one that does not exist', () => {
    apiKey
      .given([created, { type: 'ApiKeyRotated', data: { keyId: 'key_1', replacedBy: 'key_2', rotatedAt: 'x', graceEndsAt: 'y' } }])
      .when({ type: 'RotateApiKey', keyId: 'key_1', replacedBy: 'key_3', at: 'z' })
      .thenRefuses({ tag: 'KeyNotActive' });
    apiKey.given([]).when({ type: 'RotateApiKey', keyId: 'key_9', replacedBy: 'key_3', at: 'z' }).thenRefuses({ tag: 'KeyNotFound' });
  });

  it('rotation always works: the replacement is named with " (rotated)" and never outgrows the name cap', () => {
    assert.equal(rotatedName('Research notebook'), 'Research notebook (rotated)');
    let name = 'x'.repeat(MAX_KEY_NAME_LENGTH);
    for (let i = 0; i < 20; i += 1) {
      name = rotatedName(name);
      assert.ok(name.length <= MAX_KEY_NAME_LENGTH, `rotation ${String(i + 1)}: ${String(name.length)} characters`);
      assert.ok(name.endsWith(' (rotated)'));
      apiKey
        .given([])
        .when({ type: 'CreateApiKey', key: { ...key, name }, at: '2026-11-26T10:00:00.000Z', rotatedFrom: 'key_old' })
        .thenEvents();
    }
  });

  it('revokes once; revoking again records nothing', () => {
    const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { keyId: 'key_1', revokedAt: 't', revokedBy: 'usr_1' } };
    apiKey.given([created]).when({ type: 'RevokeApiKey', keyId: 'key_1', by: 'usr_1', at: 't' }).then([revoked]);
    apiKey.given([created, revoked]).when({ type: 'RevokeApiKey', keyId: 'key_1', by: 'usr_1', at: 't2' }).thenNothing();
  });
});

describe('organisation decider', () => {
  const organization = spec({ decide: decideOrganization, evolve: evolveOrganization, initialState: initialOrganization });
  const created: OrganizationEvent = {
    type: 'OrganizationCreated',
    data: { organizationId: 'org_1', name: 'Firm', allowlist: [], strictAllowlist: false },
  };

  it('refuses an allowlist entry that is not an address or CIDR range', () => {
    organization
      .given([created])
      .when({ type: 'SetAllowlist', organizationId: 'org_1', allowlist: ['10.0.0.0/8', 'office'], strictAllowlist: true })
      .thenRefuses({ tag: 'InvalidCidr', value: 'office' });
  });

  it('deactivates once, and then refuses allowlist changes', () => {
    const deactivated = organization.given([created, { type: 'OrganizationDeactivated', data: { organizationId: 'org_1' } }]);
    deactivated.when({ type: 'DeactivateOrganization', organizationId: 'org_1' }).thenNothing();
    deactivated
      .when({ type: 'SetAllowlist', organizationId: 'org_1', allowlist: [], strictAllowlist: false })
      .thenRefuses({ tag: 'OrganizationDeactivated' });
  });
});

describe('user decider', () => {
  const user = spec({ decide: decideUser, evolve: evolveUser, initialState: initialUser });
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
    user
      .given([])
      .when({ type: 'RegisterUser', profile, organization: 'active' })
      .then([{ type: 'UserRegistered', data: { ...profile, email: 'priya.sharma@lawfirm.example', name: 'Priya Sharma' } }]);
  });

  it('refuses an admin without an organisation, a missing or deactivated organisation, and a bad email', () => {
    const none = user.given([]);
    none
      .when({ type: 'RegisterUser', profile: { ...profile, organizationId: null }, organization: 'none' })
      .thenRefuses({ tag: 'AdminNeedsOrganization' });
    none.when({ type: 'RegisterUser', profile, organization: 'none' }).thenRefuses({ tag: 'OrganizationNotFound' });
    none.when({ type: 'RegisterUser', profile, organization: 'deactivated' }).thenRefuses({ tag: 'OrganizationDeactivated' });
    none
      .when({ type: 'RegisterUser', profile: { ...profile, email: 'nobody' }, organization: 'active' })
      .thenRefuses({ tag: 'InvalidEmail' });
  });

  it('records a standing change only when it changes', () => {
    const registered = user.given([{ type: 'UserRegistered', data: profile }]);
    registered.when({ type: 'SetStanding', userId: 'usr_1', standing: 'active' }).thenNothing();
    registered
      .when({ type: 'SetStanding', userId: 'usr_1', standing: 'suspended' })
      .then([{ type: 'UserStandingChanged', data: { userId: 'usr_1', standing: 'suspended' } }]);
  });

  it('erases once, and an erased user is found by nothing and cannot be registered again', () => {
    const at = '2026-11-29T04:00:00.000Z';
    user.given([]).when({ type: 'EraseUser', userId: 'usr_1', at }).thenRefuses({ tag: 'UserNotFound' });
    user
      .given([{ type: 'UserRegistered', data: profile }])
      .when({ type: 'EraseUser', userId: 'usr_1', at })
      .then([{ type: 'UserErased', data: { userId: 'usr_1', erasedAt: at } }]);
    // Shredded fields read as null in the registration the fold still sees.
    const erased = user.given([
      { type: 'UserRegistered', data: { ...profile, email: null, name: null } as unknown as UserProfile },
      { type: 'UserErased', data: { userId: 'usr_1', erasedAt: at } },
    ]);
    erased.when({ type: 'EraseUser', userId: 'usr_1', at }).thenNothing();
    erased.when({ type: 'SetStanding', userId: 'usr_1', standing: 'suspended' }).thenRefuses({ tag: 'UserNotFound' });
    erased.when({ type: 'RegisterUser', profile, organization: 'active' }).thenRefuses({ tag: 'UserExists' });
  });
});
