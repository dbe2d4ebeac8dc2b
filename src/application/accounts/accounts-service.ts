/**
 * Account commands: organisations, users and API keys. Each method reads the aggregate's
 * stream, decides, appends (the inline read model updates in the same transaction) and
 * returns a result or a tagged error; the HTTP layer maps errors to codes.
 */
import { sql } from 'kysely';
import type { EventMetadata, EventStore } from '../../ports/event-store.ts';
import type { Db, Trx } from '../../db/database.ts';
import { limitsFor, type LimitOverrides, type Tier } from '../../domain/access/tiers.ts';
import {
  decideApiKey,
  evolveApiKey,
  initialApiKey,
  rotatedName,
  type ApiKeyCommand,
  type ApiKeyError,
  type ApiKeyEvent,
  type ApiKeyState,
} from '../../domain/api-key/api-key.ts';
import {
  decideOrganization,
  evolveOrganization,
  initialOrganization,
  type OrganizationCommand,
  type OrganizationError,
  type OrganizationEvent,
  type OrganizationState,
} from '../../domain/organization/organization.ts';
import {
  decideUser,
  evolveUser,
  initialUser,
  type Role,
  type UserProfile,
  type Standing,
  type UserCommand,
  type UserError,
  type UserEvent,
  type UserState,
} from '../../domain/user/user.ts';
import type { KeyMode } from '../../domain/api-key/api-key.ts';
import {
  accountStanding,
  decidePermission,
  endsSessions,
  permissionRole,
  type PermissionAction,
  type PermissionRefusal,
} from '../../domain/access/permissions.ts';
import type { ApiKeyCodec, PasswordHasher } from '../../ports/api-keys.ts';
import type { Clock, IdGenerator } from '../../ports/clock.ts';
import type { ErasureOutcome, SubjectKeys } from '../../ports/subject-keys.ts';
import { webhookStreamId } from '../../domain/webhook/webhook-endpoints.ts';
import { handleCommand, type Aggregate } from '../command-handler.ts';

const organizations: Aggregate<OrganizationCommand, OrganizationEvent, OrganizationState, OrganizationError> = {
  streamType: 'organization',
  initial: initialOrganization,
  decide: decideOrganization,
  evolve: evolveOrganization,
};
const users: Aggregate<UserCommand, UserEvent, UserState, UserError> = {
  streamType: 'user',
  initial: initialUser,
  decide: decideUser,
  evolve: evolveUser,
};
const apiKeys: Aggregate<ApiKeyCommand, ApiKeyEvent, ApiKeyState, ApiKeyError> = {
  streamType: 'api-key',
  initial: initialApiKey,
  decide: decideApiKey,
  evolve: evolveApiKey,
};

export const organizationStream = (id: string) => `organization-${id}`;
export const userStream = (id: string) => `user-${id}`;
export const apiKeyStream = (id: string) => `api-key-${id}`;

/** Who is acting: a dashboard user, or an operator through the admin API. */
export type Actor = { kind: 'user'; userId: string; role: Role; organizationId: string | null } | { kind: 'operator' };

export type AccountError =
  | OrganizationError
  | UserError
  | ApiKeyError
  | { tag: 'EmailTaken' }
  | { tag: 'EmailNotVerified' }
  | { tag: 'KeyLimitReached'; limit: number }
  /** The permission table refused a user actor, by role and standing as they are in this transaction. */
  | { tag: 'NotPermitted'; reason: PermissionRefusal };

export type Result<T> = { ok: true; value: T } | { ok: false; error: AccountError };

/** A user as an operator or sign-up registers one: the profile, with a password to hash. */
export type NewUser = Omit<UserProfile, 'userId' | 'passwordHash'> & { readonly password: string | null };

export interface IssuedKey {
  readonly id: string;
  readonly name: string;
  readonly fullKey: string;
  readonly displayKey: string;
  readonly mode: KeyMode;
}

export interface RotatedKey {
  readonly apiKey: IssuedKey;
  readonly rotatedFrom: { readonly id: string; readonly expiresAt: string };
}

/** What an erasure did; ids, counts and the time only. */
export interface UserErasure extends ErasureOutcome {
  readonly userId: string;
  readonly erasedAt: string;
  readonly keysRevoked: number;
}

export interface AccountsDeps {
  readonly db: Db;
  readonly store: EventStore<Trx>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly keys: ApiKeyCodec;
  readonly passwords: PasswordHasher;
  readonly subjectKeys: SubjectKeys<Trx>;
}

const failed = (error: AccountError): { ok: false; error: AccountError } => ({ ok: false, error });

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

export class AccountsService {
  constructor(private readonly deps: AccountsDeps) {}

  #meta(actor: Actor, requestId?: string): EventMetadata {
    return {
      occurredAt: this.deps.clock.now().toISOString(),
      actor: actor.kind === 'operator' ? 'operator' : `user:${actor.userId}`,
      ...(requestId ? { requestId } : {}),
    };
  }

  async createOrganization(
    input: { name: string; allowlist: string[]; strictAllowlist: boolean },
    actor: Actor,
    requestId?: string,
  ): Promise<Result<{ organizationId: string }>> {
    const organizationId = `org_${this.deps.ids.next()}`;
    const result = await handleCommand(
      this.deps.store,
      organizations,
      organizationStream(organizationId),
      { type: 'CreateOrganization', organizationId, ...input },
      this.#meta(actor, requestId),
    );
    return result.ok ? { ok: true, value: { organizationId } } : failed(result.error);
  }

  async deactivateOrganization(organizationId: string, actor: Actor, requestId?: string): Promise<Result<null>> {
    const result = await handleCommand(
      this.deps.store,
      organizations,
      organizationStream(organizationId),
      { type: 'DeactivateOrganization', organizationId },
      this.#meta(actor, requestId),
    );
    if (!result.ok) return failed(result.error);
    // Every member's dashboard sessions end now; a request racing this finds the standing anyway.
    const members = this.deps.db.selectFrom('users').select('userId').where('organizationId', '=', organizationId);
    await this.deps.db.deleteFrom('dashboardSessions').where('userId', 'in', members).execute();
    return { ok: true, value: null };
  }

  async setAllowlist(
    organizationId: string,
    allowlist: string[],
    strictAllowlist: boolean,
    actor: Actor,
    requestId?: string,
  ): Promise<Result<null>> {
    const command = { type: 'SetAllowlist' as const, organizationId, allowlist, strictAllowlist };
    const result = await handleCommand(
      this.deps.store,
      organizations,
      organizationStream(organizationId),
      command,
      this.#meta(actor, requestId),
    );
    return result.ok ? { ok: true, value: null } : failed(result.error);
  }

  /** Whether an organisation's allowlist fails closed today; false for one that does not exist. */
  async strictAllowlist(organizationId: string): Promise<boolean> {
    const row = await this.deps.db
      .selectFrom('organizations')
      .select('strictAllowlist')
      .where('organizationId', '=', organizationId)
      .executeTakeFirst();
    return row?.strictAllowlist ?? false;
  }

  async registerUser(input: NewUser, actor: Actor, requestId?: string): Promise<Result<{ userId: string }>> {
    const userId = `usr_${this.deps.ids.next()}`;
    const organization = input.organizationId === null ? 'none' : await this.#organizationStatus(input.organizationId);
    const { password, ...rest } = input;
    const profile = { ...rest, userId, passwordHash: password === null ? null : await this.deps.passwords.hash(password) };
    try {
      const result = await handleCommand(
        this.deps.store,
        users,
        userStream(userId),
        { type: 'RegisterUser', profile, organization },
        this.#meta(actor, requestId),
      );
      return result.ok ? { ok: true, value: { userId } } : failed(result.error);
    } catch (error) {
      if (isUniqueViolation(error)) return failed({ tag: 'EmailTaken' });
      throw error;
    }
  }

  async setStanding(userId: string, standing: Standing, actor: Actor, requestId?: string): Promise<Result<null>> {
    const result = await handleCommand(
      this.deps.store,
      users,
      userStream(userId),
      { type: 'SetStanding', userId, standing },
      this.#meta(actor, requestId),
    );
    if (!result.ok) return failed(result.error);
    // A suspension ends the user's dashboard sessions now; a request racing this finds the standing anyway.
    if (endsSessions(accountStanding(standing, null)))
      await this.deps.db.deleteFrom('dashboardSessions').where('userId', '=', userId).execute();
    return { ok: true, value: null };
  }

  /**
   * Erases a user (the data principal's right to erasure): in one commit their keys are
   * revoked, a UserErased event (ids and time only) removes their read-model row and
   * sessions, and their data key is shredded, so every personal field of theirs in the log
   * reads as null from then on. Ledger, usage and audit events keep their ids and amounts.
   */
  async eraseUser(userId: string, actor: Actor, requestId?: string): Promise<Result<UserErasure>> {
    return this.deps.db.transaction().execute(async (trx) => {
      const meta = this.#meta(actor, requestId);
      const erased = await handleCommand(
        this.deps.store,
        users,
        userStream(userId),
        { type: 'EraseUser', userId, at: meta.occurredAt },
        meta,
        trx,
      );
      if (!erased.ok) return failed(erased.error);
      const live = await trx
        .selectFrom('apiKeys')
        .select('keyId')
        .where('userId', '=', userId)
        .where('status', '!=', 'revoked')
        .forUpdate()
        .execute();
      for (const { keyId } of live) {
        const revoked = await this.#revoke(trx, keyId, actor, meta);
        if (!revoked.ok) throw new Error(`erasing ${userId}: revoking ${keyId} refused: ${revoked.error.tag}`);
      }
      // Their own account's webhooks are theirs too (a user's account id is their user id).
      const streamIds = [userStream(userId), webhookStreamId(userId)];
      const outcome = await this.deps.subjectKeys.erase({ subjectId: userId, streamIds }, new Date(meta.occurredAt), trx);
      return { ok: true, value: { userId, erasedAt: meta.occurredAt, keysRevoked: live.length, ...outcome } };
    });
  }

  /** Creates a key for `userId`, within the tier's key cap (per mode) and the email rule of Free. */
  async createKey(userId: string, name: string, actor: Actor, requestId?: string, mode: KeyMode = 'live'): Promise<Result<IssuedKey>> {
    return this.deps.db.transaction().execute(async (trx) => {
      // One key creation per user at a time, so two concurrent requests cannot both pass the cap.
      await sql`select pg_advisory_xact_lock(hashtext(${`api-keys:${userId}`}))`.execute(trx);
      const refused = await this.#refusal(trx, actor, 'keys.create');
      if (refused) return refused;
      const user = await trx.selectFrom('users').selectAll().where('userId', '=', userId).executeTakeFirst();
      if (!user) return failed({ tag: 'UserNotFound' });
      if (user.tier === 'free' && !user.emailVerified) return failed({ tag: 'EmailNotVerified' });
      const limit = limitsFor(user.tier as Tier, user.limitOverrides as LimitOverrides).apiKeys;
      if ((await this.#liveKeyCount(trx, userId, mode)) >= limit) return failed({ tag: 'KeyLimitReached', limit });
      return this.#issue(trx, { userId, organizationId: user.organizationId, name, rotatedFrom: null, mode }, this.#meta(actor, requestId));
    });
  }

  /** Rotates a key the actor may manage: the old one enters its 24-hour grace window. */
  async rotateKey(keyId: string, actor: Actor, requestId?: string): Promise<Result<RotatedKey>> {
    return this.deps.db.transaction().execute(async (trx) => {
      const refused = await this.#refusal(trx, actor, 'keys.rotate');
      if (refused) return refused;
      const key = await this.#manageableKey(trx, keyId, actor);
      if (!key) return failed({ tag: 'KeyNotFound' });
      if (key.status !== 'active') return failed({ tag: 'KeyNotActive' });
      const meta = this.#meta(actor, requestId);
      const issued = await this.#issue(
        trx,
        {
          userId: key.userId,
          organizationId: key.organizationId,
          name: rotatedName(key.name),
          rotatedFrom: keyId,
          mode: this.deps.keys.modeOf(key.displayKey) ?? 'live',
        },
        meta,
      );
      if (!issued.ok) return issued;
      const rotated = await handleCommand(
        this.deps.store,
        apiKeys,
        apiKeyStream(keyId),
        { type: 'RotateApiKey', keyId, replacedBy: issued.value.id, at: meta.occurredAt },
        meta,
        trx,
      );
      if (!rotated.ok) throw new Error(`rotation of ${keyId} refused after the new key was issued: ${rotated.error.tag}`);
      const event = rotated.events[0];
      const expiresAt = event?.type === 'ApiKeyRotated' ? event.data.graceEndsAt : meta.occurredAt;
      return { ok: true, value: { apiKey: issued.value, rotatedFrom: { id: keyId, expiresAt } } };
    });
  }

  async revokeKey(keyId: string, actor: Actor, requestId?: string): Promise<Result<null>> {
    return this.deps.db.transaction().execute(async (trx) => {
      const refused = await this.#refusal(trx, actor, 'keys.revoke');
      if (refused) return refused;
      const key = await this.#manageableKey(trx, keyId, actor);
      if (!key) return failed({ tag: 'KeyNotFound' });
      const result = await this.#revoke(trx, keyId, actor, this.#meta(actor, requestId));
      return result.ok ? { ok: true, value: null } : failed(result.error);
    });
  }

  /** The revocation a key's owner, an admin or the operator makes; an erasure makes it for each live key. */
  #revoke(trx: Trx, keyId: string, actor: Actor, meta: EventMetadata) {
    const by = actor.kind === 'operator' ? 'operator' : actor.userId;
    return handleCommand(
      this.deps.store,
      apiKeys,
      apiKeyStream(keyId),
      { type: 'RevokeApiKey', keyId, by, at: meta.occurredAt },
      meta,
      trx,
    );
  }

  /** Keys the actor may see: their own, or every key of their organisation for an ORG_ADMIN. */
  async listKeys(actor: Extract<Actor, { kind: 'user' }>) {
    const rows = await this.deps.db
      .selectFrom('apiKeys')
      .select(['keyId', 'name', 'displayKey', 'status', 'graceEndsAt', 'createdAt', 'revokedAt', 'userId'])
      .$if(actor.role === 'ORG_ADMIN' && actor.organizationId !== null, (qb) => qb.where('organizationId', '=', actor.organizationId))
      .$if(actor.role !== 'ORG_ADMIN' || actor.organizationId === null, (qb) => qb.where('userId', '=', actor.userId))
      .orderBy('createdAt', 'desc')
      .execute();
    return rows.map((row) => ({ ...row, mode: this.deps.keys.modeOf(row.displayKey) ?? 'live' }));
  }

  async #issue(
    trx: Trx,
    owner: { userId: string; organizationId: string | null; name: string; rotatedFrom: string | null; mode: KeyMode },
    meta: EventMetadata,
  ): Promise<Result<IssuedKey>> {
    const minted = await this.deps.keys.mint(owner.mode);
    const keyId = `key_${this.deps.ids.next()}`;
    const key = {
      keyId,
      userId: owner.userId,
      organizationId: owner.organizationId,
      name: owner.name,
      keyHash: minted.keyHash,
      displayKey: minted.displayKey,
    };
    const result = await handleCommand(
      this.deps.store,
      apiKeys,
      apiKeyStream(keyId),
      { type: 'CreateApiKey', key, at: meta.occurredAt, rotatedFrom: owner.rotatedFrom },
      meta,
      trx,
    );
    if (!result.ok) return failed(result.error);
    return {
      ok: true,
      value: { id: keyId, name: key.name.trim(), fullKey: minted.plaintext, displayKey: minted.displayKey, mode: owner.mode },
    };
  }

  /** Keys of `mode` that still authenticate (active, or rotated within grace): live and test keys are capped apart. */
  async #liveKeyCount(trx: Trx, userId: string, mode: KeyMode): Promise<number> {
    const rows = await trx
      .selectFrom('apiKeys')
      .select('displayKey')
      .where('userId', '=', userId)
      .where((eb) =>
        eb.or([eb('status', '=', 'active'), eb.and([eb('status', '=', 'rotated'), eb('graceEndsAt', '>', this.deps.clock.now())])]),
      )
      .execute();
    return rows.filter((row) => (this.deps.keys.modeOf(row.displayKey) ?? 'live') === mode).length;
  }

  async #manageableKey(trx: Trx, keyId: string, actor: Actor) {
    // Row lock: two concurrent rotations of one key serialise here; the second sees it rotated.
    const key = await trx.selectFrom('apiKeys').selectAll().where('keyId', '=', keyId).forUpdate().executeTakeFirst();
    if (!key) return undefined;
    if (actor.kind === 'operator' || key.userId === actor.userId) return key;
    const sameOrganization = actor.organizationId !== null && key.organizationId === actor.organizationId;
    return sameOrganization && (await this.#refusal(trx, actor, 'keys.manageOrganization')) === undefined ? key : undefined;
  }

  /**
   * The permission table's refusal of a user actor, asked with the role and standing read in
   * this transaction (not those the caller's session held): a standing changed a moment ago
   * already counts. Operators act through the admin API and are not in the table.
   */
  async #refusal(trx: Trx, actor: Actor, action: PermissionAction): Promise<{ ok: false; error: AccountError } | undefined> {
    if (actor.kind === 'operator') return undefined;
    const row = await trx
      .selectFrom('users as u')
      .leftJoin('organizations as o', 'o.organizationId', 'u.organizationId')
      .select(['u.role', 'u.organizationId', 'u.standing', 'o.status as organizationStatus'])
      .where('u.userId', '=', actor.userId)
      .executeTakeFirst();
    if (!row) return failed({ tag: 'UserNotFound' });
    const organization = row.organizationStatus === null ? null : row.organizationStatus === 'deactivated' ? 'deactivated' : 'active';
    const decision = decidePermission(action, {
      role: permissionRole(row.role as Role, row.organizationId),
      standing: accountStanding(row.standing as Standing, organization),
    });
    return decision.allowed ? undefined : failed({ tag: 'NotPermitted', reason: decision.reason });
  }

  async #organizationStatus(organizationId: string): Promise<'active' | 'deactivated' | 'none'> {
    const row = await this.deps.db
      .selectFrom('organizations')
      .select('status')
      .where('organizationId', '=', organizationId)
      .executeTakeFirst();
    return row ? (row.status as 'active' | 'deactivated') : 'none';
  }
}
