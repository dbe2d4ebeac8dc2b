/**
 * Dashboard sessions: password login, an opaque session token with its CSRF companion,
 * logout, and resolving a token back to the user. Only the SHA-256 of the session token is
 * stored, so a leaked table cannot be replayed as cookies. Sessions are short-lived login
 * state rather than domain facts, so they are plain rows, not events. A failed login does
 * the same work whether or not the email exists, so timing does not reveal accounts.
 *
 * Rights follow standing on every request: resolving a session reads the user's and the
 * organisation's standing as they are now, and a suspended user or a deactivated
 * organisation ends every session of the user there and then. What a live session may do is
 * the permission table's answer (domain/access/permissions.ts), asked through `authorize`.
 * Logins are throttled per account and per address block and their password hashes bounded
 * (login-throttle.ts, hash-gate.ts).
 */
import type { Db } from '../../db/database.ts';
import type { Actor } from '../accounts/accounts-service.ts';
import type { Tier } from '../../domain/access/tiers.ts';
import type { Role, Standing } from '../../domain/user/user.ts';
import {
  accountStanding,
  decidePermission,
  endsSessions,
  permissionRole,
  standingRefusal,
  type PermissionAction,
  type PermissionRefusal,
  type PermissionSubject,
  type StandingRefusal,
} from '../../domain/access/permissions.ts';
import type { PasswordHasher } from '../../ports/api-keys.ts';
import type { Clock } from '../../ports/clock.ts';
import type { HashGate } from './hash-gate.ts';
import type { LoginRefusal, LoginThrottle } from './login-throttle.ts';
import { randomToken, sha256Hex } from './tokens.ts';

export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export interface SessionUser {
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  readonly organizationId: string | null;
  readonly tier: Tier;
}

/** A live session as resolved from its token. */
export interface ActiveSession {
  readonly user: SessionUser;
  /** Role and standing as read with this request: what the permission table is asked about. */
  readonly access: PermissionSubject;
  readonly csrfToken: string;
  readonly expiresAt: Date;
}

/** What a login hands back: the token goes into the cookie and is never stored. */
export interface NewSession {
  readonly token: string;
  readonly userId: string;
  readonly csrfToken: string;
  readonly expiresAt: Date;
}

/** The account-service actor a dashboard user acts as. */
export function actorFor(user: SessionUser): Extract<Actor, { kind: 'user' }> {
  return { kind: 'user', userId: user.userId, role: user.role, organizationId: user.organizationId };
}

export type LoginError =
  | { tag: 'InvalidCredentials' }
  | { tag: 'Throttled'; refusal: LoginRefusal }
  /** Too many password hashes in flight already: try again in a moment. */
  | { tag: 'Busy' }
  /** The password was right, but the standing admits no session. */
  | { tag: 'NotPermitted'; reason: StandingRefusal };
export type LoginResult = { ok: true; value: NewSession } | { ok: false; error: LoginError };

export type SessionRefusal = { tag: 'NoSession' } | { tag: 'NotPermitted'; reason: PermissionRefusal };
export type Authorization = { ok: true; session: ActiveSession } | { ok: false; refusal: SessionRefusal };

/** Whether a live session may take `action` now: the table asked about the standing read with it. */
export function permits(session: ActiveSession, action: PermissionAction): Extract<SessionRefusal, { tag: 'NotPermitted' }> | undefined {
  const decision = decidePermission(action, session.access);
  return decision.allowed ? undefined : { tag: 'NotPermitted', reason: decision.reason };
}

export interface SessionDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly passwords: PasswordHasher;
  readonly throttle: LoginThrottle;
  readonly hashGate: HashGate;
  /** A fresh unguessable token, for sessions and CSRF; Web Crypto by default. */
  readonly newToken?: () => string;
  readonly ttlSeconds?: number;
}

export class SessionService {
  readonly #newToken: () => string;
  readonly #ttlSeconds: number;
  readonly #dummyHash: Promise<string>;

  constructor(private readonly deps: SessionDeps) {
    this.#newToken = deps.newToken ?? randomToken;
    this.#ttlSeconds = deps.ttlSeconds ?? SESSION_TTL_SECONDS;
    // Hashed once, up front: an unknown email is verified against it, at the cost of a real one.
    this.#dummyHash = deps.passwords.hash(this.#newToken());
    // Marks the promise handled; a failure still surfaces at the first login that awaits it.
    this.#dummyHash.catch(() => undefined);
  }

  /** `address` is the client's: failures count against it (its /64 for IPv6) as well as the account. */
  async login(email: string, password: string, address: string): Promise<LoginResult> {
    const throttled = this.deps.throttle.check(email, address);
    if (throttled) return { ok: false, error: { tag: 'Throttled', refusal: throttled } };
    const claim = this.deps.throttle.begin(email);
    if ('refusal' in claim) return { ok: false, error: { tag: 'Throttled', refusal: claim.refusal } };
    try {
      return await this.#login(email, password, address);
    } finally {
      claim.release();
    }
  }

  async #login(email: string, password: string, address: string): Promise<LoginResult> {
    const user = await this.deps.db
      .selectFrom('users as u')
      .leftJoin('organizations as o', 'o.organizationId', 'u.organizationId')
      .select(['u.userId', 'u.passwordHash', 'u.standing', 'o.status as organizationStatus'])
      .where('u.email', '=', email.trim().toLowerCase())
      .executeTakeFirst();
    const stored = user?.passwordHash ?? (await this.#dummyHash);
    const verified = await this.deps.hashGate.run(() => this.deps.passwords.verify(password, stored));
    if (!verified.ok) return { ok: false, error: { tag: 'Busy' } };
    if (!user || user.passwordHash === null || !verified.value) {
      await this.deps.throttle.recordFailure(email, address);
      return { ok: false, error: { tag: 'InvalidCredentials' } };
    }
    // A standing that may not hold a session may not start one either.
    const refused = standingRefusal(
      'session.view',
      accountStanding(user.standing as Standing, organizationStatus(user.organizationStatus)),
    );
    if (refused !== null) return { ok: false, error: { tag: 'NotPermitted', reason: refused } };

    const now = this.deps.clock.now();
    const session: NewSession = {
      token: this.#newToken(),
      userId: user.userId,
      csrfToken: this.#newToken(),
      expiresAt: new Date(now.getTime() + this.#ttlSeconds * 1000),
    };
    const sessionHash = await sha256Hex(session.token);
    await this.deps.db.transaction().execute(async (trx) => {
      // Housekeeping on the way in keeps a user's dead sessions from piling up.
      await trx.deleteFrom('dashboardSessions').where('userId', '=', user.userId).where('expiresAt', '<=', now).execute();
      await trx
        .insertInto('dashboardSessions')
        .values({ sessionHash, userId: user.userId, csrfToken: session.csrfToken, createdAt: now, expiresAt: session.expiresAt })
        .execute();
    });
    return { ok: true, value: session };
  }

  /**
   * The session behind a token if it may take `action` now. When the user's standing admits
   * no session, every session of the user is deleted first: this request is the last any of
   * them gets, answered by the table (only ending the session is still allowed).
   */
  async authorize(token: string, action: PermissionAction): Promise<Authorization> {
    const session = await this.#resolve(token);
    if (session === undefined) return { ok: false, refusal: { tag: 'NoSession' } };
    if (endsSessions(session.access.standing)) {
      await this.deps.db.deleteFrom('dashboardSessions').where('userId', '=', session.user.userId).execute();
    }
    const refusal = permits(session, action);
    return refusal ? { ok: false, refusal } : { ok: true, session };
  }

  /** The session behind a token, or undefined when it is unknown, logged out or expired. */
  async #resolve(token: string): Promise<ActiveSession | undefined> {
    const row = await this.deps.db
      .selectFrom('dashboardSessions as s')
      .innerJoin('users as u', 'u.userId', 's.userId')
      .leftJoin('organizations as o', 'o.organizationId', 'u.organizationId')
      .select([
        'u.userId',
        'u.email',
        'u.role',
        'u.organizationId',
        'u.tier',
        'u.standing',
        'o.status as organizationStatus',
        's.csrfToken',
        's.expiresAt',
      ])
      .where('s.sessionHash', '=', await sha256Hex(token))
      .where('s.expiresAt', '>', this.deps.clock.now())
      .executeTakeFirst();
    if (!row) return undefined;
    const user: SessionUser = {
      userId: row.userId,
      email: row.email,
      role: row.role as Role,
      organizationId: row.organizationId,
      tier: row.tier as Tier,
    };
    const standing = accountStanding(row.standing as Standing, organizationStatus(row.organizationStatus));
    const access: PermissionSubject = { role: permissionRole(user.role, user.organizationId), standing };
    return { user, access, csrfToken: row.csrfToken, expiresAt: new Date(row.expiresAt) };
  }

  /** Ends the session behind a token; unknown tokens are a no-op. */
  async logout(token: string): Promise<void> {
    await this.deps.db
      .deleteFrom('dashboardSessions')
      .where('sessionHash', '=', await sha256Hex(token))
      .execute();
  }
}

function organizationStatus(status: string | null): 'active' | 'deactivated' | null {
  return status === null ? null : status === 'deactivated' ? 'deactivated' : 'active';
}
