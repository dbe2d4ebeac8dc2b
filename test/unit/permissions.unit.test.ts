/**
 * The permission table, every action × role × standing: the expected answer is written out
 * here as its own table (not derived from the module), so a changed rule fails a named cell.
 * Also the standing join (organisation outranks user), which standings end sessions, and
 * that the API's key check answers from the same table.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideAccess } from '../../src/domain/access/access.ts';
import { rule } from '../support/decider-spec.ts';
import {
  ACCOUNT_STANDINGS,
  accountStanding,
  decidePermission,
  endsSessions,
  PERMISSION_ACTIONS,
  PERMISSION_ROLES,
  permissionRole,
  type AccountStanding,
  type PermissionAction,
  type PermissionRole,
} from '../../src/domain/access/permissions.ts';

type Cell = 'allow' | 'standing' | 'role';

/** Per action: which roles may, and which standings may (A active, B billing_inactive, S suspended, D organisation deactivated). */
const EXPECTED: Record<PermissionAction, { roles: PermissionRole[]; standings: string }> = {
  'session.view': { roles: ['PERSONAL', 'MEMBER', 'ORG_ADMIN'], standings: 'AB' },
  'session.end': { roles: ['PERSONAL', 'MEMBER', 'ORG_ADMIN'], standings: 'ABSD' },
  'dashboard.view': { roles: ['PERSONAL', 'MEMBER', 'ORG_ADMIN'], standings: 'AB' },
  'ledger.view': { roles: ['PERSONAL', 'ORG_ADMIN'], standings: 'AB' },
  'keys.list': { roles: ['PERSONAL', 'MEMBER', 'ORG_ADMIN'], standings: 'AB' },
  'keys.create': { roles: ['PERSONAL', 'MEMBER', 'ORG_ADMIN'], standings: 'A' },
  'keys.rotate': { roles: ['PERSONAL', 'MEMBER', 'ORG_ADMIN'], standings: 'A' },
  'keys.revoke': { roles: ['PERSONAL', 'MEMBER', 'ORG_ADMIN'], standings: 'AB' },
  'keys.manageOrganization': { roles: ['ORG_ADMIN'], standings: 'AB' },
  'webhooks.list': { roles: ['PERSONAL', 'ORG_ADMIN'], standings: 'AB' },
  'webhooks.deliveries': { roles: ['PERSONAL', 'ORG_ADMIN'], standings: 'AB' },
  'webhooks.create': { roles: ['PERSONAL', 'ORG_ADMIN'], standings: 'A' },
  'webhooks.rotateSecret': { roles: ['PERSONAL', 'ORG_ADMIN'], standings: 'A' },
  'webhooks.enable': { roles: ['PERSONAL', 'ORG_ADMIN'], standings: 'A' },
  'webhooks.remove': { roles: ['PERSONAL', 'ORG_ADMIN'], standings: 'AB' },
  'webhooks.sendTest': { roles: ['PERSONAL', 'ORG_ADMIN'], standings: 'A' },
  'webhooks.resend': { roles: ['PERSONAL', 'ORG_ADMIN'], standings: 'A' },
  'api.call': { roles: ['PERSONAL', 'MEMBER', 'ORG_ADMIN'], standings: 'A' },
};

const LETTER: Record<AccountStanding, string> = { active: 'A', billing_inactive: 'B', suspended: 'S', organization_deactivated: 'D' };
const STANDING_REASON = {
  billing_inactive: 'BillingInactive',
  suspended: 'AccountSuspended',
  organization_deactivated: 'OrganizationDeactivated',
} as const;

function expected(action: PermissionAction, role: PermissionRole, standing: AccountStanding): Cell {
  const rule = EXPECTED[action];
  if (!rule.standings.includes(LETTER[standing])) return 'standing';
  return rule.roles.includes(role) ? 'allow' : 'role';
}

describe('permission table', () => {
  it('has a written expectation for every action', () => {
    assert.deepEqual(Object.keys(EXPECTED).sort(), [...PERMISSION_ACTIONS].sort());
  });

  for (const action of PERMISSION_ACTIONS) {
    it(`${action}: every role × standing`, () => {
      for (const role of PERMISSION_ROLES) {
        for (const standing of ACCOUNT_STANDINGS) {
          const decision = decidePermission(action, { role, standing });
          const cell = expected(action, role, standing);
          const where = `${action} ${role} ${standing}`;
          if (cell === 'allow') assert.deepEqual(decision, { allowed: true }, where);
          else if (cell === 'role') assert.deepEqual(decision, { allowed: false, reason: 'OrgAdminRequired' }, where);
          else assert.deepEqual(decision, { allowed: false, reason: STANDING_REASON[standing as keyof typeof STANDING_REASON] }, where);
        }
      }
    });
  }

  it('tells a suspended member they are suspended, not that they lack the role', () => {
    assert.deepEqual(decidePermission('webhooks.create', { role: 'MEMBER', standing: 'suspended' }), {
      allowed: false,
      reason: 'AccountSuspended',
    });
  });

  it('joins standing with the organisation first, and ends sessions only when suspended or deactivated', () => {
    assert.equal(accountStanding('active', 'deactivated'), 'organization_deactivated');
    assert.equal(accountStanding('billing_inactive', 'deactivated'), 'organization_deactivated');
    assert.equal(accountStanding('suspended', 'active'), 'suspended');
    assert.equal(accountStanding('billing_inactive', null), 'billing_inactive');
    assert.deepEqual(
      ACCOUNT_STANDINGS.filter((s) => endsSessions(s)),
      ['suspended', 'organization_deactivated'],
    );
  });

  it('gives a user without an organisation the PERSONAL role whatever the stored role', () => {
    assert.equal(permissionRole('MEMBER', null), 'PERSONAL');
    assert.equal(permissionRole('MEMBER', 'org_1'), 'MEMBER');
    assert.equal(permissionRole('ORG_ADMIN', 'org_1'), 'ORG_ADMIN');
  });

  it('is what the API asks of a key owner', () => {
    const key = { status: 'active', graceEndsAt: null } as const;
    const user = { standing: 'active', tier: 'enterprise', trial: false, apiAccess: true } as const;
    const policy = { entitledTiers: ['enterprise'] as const };
    const now = '2026-11-29T00:00:00Z';
    assert.equal(decideAccess({ key, user, organization: { status: 'active' } }, policy, now), null);
    assert.equal(decideAccess({ key, user: { ...user, standing: 'suspended' }, organization: null }, policy, now), 'AccountSuspended');
    assert.equal(
      decideAccess({ key, user: { ...user, standing: 'billing_inactive' }, organization: null }, policy, now),
      'BillingInactive',
    );
    assert.equal(decideAccess({ key, user, organization: { status: 'deactivated' } }, policy, now), 'OrganizationDeactivated');
  });

  it('states the issue’s cases as given/when/then: standing before role', () => {
    const permission = rule(decidePermission);
    permission.when('keys.rotate', { role: 'ORG_ADMIN', standing: 'suspended' }).then({ allowed: false, reason: 'AccountSuspended' });
    permission.when('webhooks.create', { role: 'MEMBER', standing: 'active' }).then({ allowed: false, reason: 'OrgAdminRequired' });
    permission
      .when('webhooks.create', { role: 'MEMBER', standing: 'organization_deactivated' })
      .then({ allowed: false, reason: 'OrganizationDeactivated' });
    permission.when('keys.revoke', { role: 'MEMBER', standing: 'billing_inactive' }).then({ allowed: true });
  });
});
