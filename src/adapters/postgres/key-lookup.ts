/** One query from a key hash to everything the access check needs: key, user, organisation. */
import type { Db } from '../../db/database.ts';
import type { Tier } from '../../domain/access/tiers.ts';
import type { Role, Standing } from '../../domain/user/user.ts';
import type { KeyRecord } from '../../ports/api-keys.ts';

export async function findKeyByHash(db: Db, keyHash: string): Promise<KeyRecord | undefined> {
  const row = await db
    .selectFrom('apiKeys as k')
    .leftJoin('users as u', 'u.userId', 'k.userId')
    .leftJoin('organizations as o', 'o.organizationId', 'k.organizationId')
    .select([
      'k.keyId',
      'k.status',
      'k.graceEndsAt',
      'u.userId',
      'u.email',
      'u.name',
      'u.role',
      'u.tier',
      'u.trial',
      'u.apiAccess',
      'u.standing',
      'u.limitOverrides',
      'o.organizationId',
      'o.status as organizationStatus',
    ])
    .where('k.keyHash', '=', keyHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    keyId: row.keyId,
    status: row.status as KeyRecord['status'],
    graceEndsAt: row.graceEndsAt ? new Date(row.graceEndsAt).toISOString() : null,
    user:
      row.userId === null
        ? null
        : {
            userId: row.userId,
            email: row.email ?? '',
            name: row.name ?? '',
            role: row.role as Role,
            tier: row.tier as Tier,
            trial: row.trial ?? false,
            apiAccess: row.apiAccess ?? false,
            standing: row.standing as Standing,
            limitOverrides: row.limitOverrides ?? {},
          },
    organization:
      row.organizationId === null
        ? null
        : { organizationId: row.organizationId, status: row.organizationStatus as 'active' | 'deactivated' },
  };
}

export async function findAllowlist(db: Db, organizationId: string): Promise<{ allowlist: string[]; strict: boolean } | undefined> {
  const row = await db
    .selectFrom('organizations')
    .select(['allowlist', 'strictAllowlist'])
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return row ? { allowlist: row.allowlist as string[], strict: row.strictAllowlist } : undefined;
}

/** The organisation of a user: null when the user has none, undefined when there is no such user. */
export async function findUserOrganization(db: Db, userId: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('users').select('organizationId').where('userId', '=', userId).executeTakeFirst();
  return row ? row.organizationId : undefined;
}
