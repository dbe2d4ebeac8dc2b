/**
 * Accounts in every state the access gate distinguishes, created through the real account
 * commands (events, inline read models) so the gate is tested against what production
 * writes. Rotations are made at earlier clock times to get a key inside and past its grace.
 */
import type { AccountsService, NewUser } from '../../src/application/accounts/accounts-service.ts';
import type { LimitOverrides, Tier } from '../../src/domain/access/tiers.ts';
import type { SettableClock } from './app.ts';

const operator = { kind: 'operator' } as const;

export interface AccessFixture {
  readonly organizationId: string;
  readonly allowlistedOrganizationId: string;
  readonly keys: Record<
    | 'active'
    | 'member'
    | 'revoked'
    | 'expired'
    | 'grace'
    | 'suspended'
    | 'billingInactive'
    | 'deactivatedOrg'
    | 'wrongPlan'
    | 'trial'
    | 'allowlisted'
    | 'noOrg'
    | 'notProvisioned',
    string
  >;
  readonly users: Record<'active' | 'member' | 'noOrg', string>;
}

function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: { tag: string } }): T {
  if (!result.ok) throw new Error(`fixture step refused: ${result.error.tag}`);
  return result.value;
}

/** An entitled, verified Enterprise member with API access: tests override what they vary. */
export function enterpriseUser(email: string, over: Partial<NewUser> = {}): NewUser {
  return {
    email,
    name: `Test ${email.split('@')[0] ?? ''}`,
    tier: 'enterprise',
    organizationId: null,
    role: 'MEMBER',
    trial: false,
    emailVerified: true,
    apiAccess: true,
    password: null,
    limitOverrides: {},
    ...over,
  };
}

/** A new Enterprise user without an organisation (so its own billing account), with `limits` and one key. */
export async function keyedUser(
  accounts: AccountsService,
  label: string,
  limits: LimitOverrides = {},
): Promise<{ userId: string; key: string }> {
  const email = `${label}.${Date.now()}.${Math.random().toString(36).slice(2)}@lawfirm.example`;
  const userId = unwrap(await accounts.registerUser(enterpriseUser(email, { limitOverrides: limits }), operator)).userId;
  return { userId, key: unwrap(await accounts.createKey(userId, label, operator)).fullKey };
}

let counter = 0;

export async function createAccessFixture(accounts: AccountsService, clock: SettableClock): Promise<AccessFixture> {
  const now = clock.now();
  const run = (counter += 1);
  const organizationId = unwrap(
    await accounts.createOrganization({ name: `Verma & Rao Advocates ${run}`, allowlist: [], strictAllowlist: false }, operator),
  ).organizationId;
  const allowlistedOrganizationId = unwrap(
    await accounts.createOrganization(
      { name: `Allowlisted LLP ${run}`, allowlist: ['203.0.113.0/24', '2001:db8::/32'], strictAllowlist: false },
      operator,
    ),
  ).organizationId;
  const deactivatedOrganizationId = unwrap(
    await accounts.createOrganization({ name: `Closed Pvt Ltd ${run}`, allowlist: [], strictAllowlist: false }, operator),
  ).organizationId;

  const user = async (label: string, over: Partial<NewUser> & { tier?: Tier } = {}) =>
    unwrap(await accounts.registerUser(enterpriseUser(`${label}.${run}@lawfirm.example`, { organizationId, ...over }), operator)).userId;
  const key = async (userId: string) => unwrap(await accounts.createKey(userId, 'matrix', operator)).fullKey;
  const keyRecord = async (userId: string) => unwrap(await accounts.createKey(userId, 'matrix', operator));

  const active = await user('admin', { role: 'ORG_ADMIN' });
  const member = await user('member');
  const noOrg = await user('solo', { organizationId: null });

  const revoked = await keyRecord(active);
  unwrap(await accounts.revokeKey(revoked.id, operator));

  clock.set(new Date(now.getTime() - 25 * 3600_000));
  const expired = await keyRecord(active);
  unwrap(await accounts.rotateKey(expired.id, operator));
  clock.set(new Date(now.getTime() - 3600_000));
  const grace = await keyRecord(active);
  unwrap(await accounts.rotateKey(grace.id, operator));
  clock.set(now);

  const suspendedUser = await user('suspended');
  const suspended = await key(suspendedUser);
  unwrap(await accounts.setStanding(suspendedUser, 'suspended', operator));
  const billingUser = await user('billing');
  const billingInactive = await key(billingUser);
  unwrap(await accounts.setStanding(billingUser, 'billing_inactive', operator));
  const deactivatedUser = await user('closed', { organizationId: deactivatedOrganizationId });
  const deactivatedOrg = await key(deactivatedUser);
  unwrap(await accounts.deactivateOrganization(deactivatedOrganizationId, operator));

  return {
    organizationId,
    allowlistedOrganizationId,
    users: { active, member, noOrg },
    keys: {
      active: await key(active),
      member: await key(member),
      noOrg: await key(noOrg),
      revoked: revoked.fullKey,
      expired: expired.fullKey,
      grace: grace.fullKey,
      suspended,
      billingInactive,
      deactivatedOrg,
      wrongPlan: await key(await user('payg', { tier: 'payg' })),
      trial: await key(await user('trial', { trial: true })),
      // Its organisation's admin, so admin-only routes (webhook endpoints) pass the matrix's allowlist case too.
      allowlisted: await key(await user('allowlisted', { organizationId: allowlistedOrganizationId, role: 'ORG_ADMIN' })),
      notProvisioned: await key(await user('unprovisioned', { apiAccess: false })),
    },
  };
}
