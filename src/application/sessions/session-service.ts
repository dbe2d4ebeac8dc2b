/**
 * Dashboard sessions: password login, an opaque session token with its CSRF companion,
 * logout, and resolving a token back to the user. Only the SHA-256 of the session token is
 * stored, so a leaked table cannot be replayed as cookies. Sessions are short-lived login
 * state rather than domain facts, so they are plain rows, not events. A failed login does
 * the same work whether or not the email exists, so timing does not reveal accounts.
 */
import type { Db } from '../../db/database.ts';
import type { Actor } from '../accounts/accounts-service.ts';
import type { Tier } from '../../domain/access/tiers.ts';
import type { Role } from '../../domain/user/user.ts';
import type { PasswordHasher } from '../../ports/api-keys.ts';
import type { Clock } from '../../ports/clock.ts';
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

export type LoginError = { tag: 'InvalidCredentials' };
export type LoginResult = { ok: true; value: NewSession } | { ok: false; error: LoginError };

export interface SessionDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly passwords: PasswordHasher;
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

  async login(email: string, password: string): Promise<LoginResult> {
    const user = await this.deps.db
      .selectFrom('users')
      .select(['userId', 'passwordHash'])
      .where('email', '=', email.trim().toLowerCase())
      .executeTakeFirst();
    const stored = user?.passwordHash ?? (await this.#dummyHash);
    const verified = await this.deps.passwords.verify(password, stored);
    if (!user || user.passwordHash === null || !verified) return { ok: false, error: { tag: 'InvalidCredentials' } };

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

  /** The session behind a token, or undefined when it is unknown, logged out or expired. */
  async resolve(token: string): Promise<ActiveSession | undefined> {
    const row = await this.deps.db
      .selectFrom('dashboardSessions as s')
      .innerJoin('users as u', 'u.userId', 's.userId')
      .select(['u.userId', 'u.email', 'u.role', 'u.organizationId', 'u.tier', 's.csrfToken', 's.expiresAt'])
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
    return { user, csrfToken: row.csrfToken, expiresAt: new Date(row.expiresAt) };
  }

  /** Ends the session behind a token; unknown tokens are a no-op. */
  async logout(token: string): Promise<void> {
    await this.deps.db
      .deleteFrom('dashboardSessions')
      .where('sessionHash', '=', await sha256Hex(token))
      .execute();
  }
}
