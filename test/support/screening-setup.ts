/**
 * What the litigation check tests share: a database holding the real corpus slice (the
 * first SC metadata rows, the judgment texts and the eCourts High Court records, ingested
 * and projected into the PostgreSQL index as production does), the real app over it (one
 * entitled for Enterprise only, as the security matrix expects, and one entitled for every
 * tier for the Free-tier rules), the access fixture, and helpers to call the routes and
 * read the ledger.
 */
import type { OpenedDatabase } from '../../src/db/open.ts';
import { openPglite } from '../../src/db/open.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { TIERS, type LimitOverrides, type Tier } from '../../src/domain/access/tiers.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import type { PartySearchIndex } from '../../src/ports/search-index.ts';
import type { DistinctCounter } from '../../src/ports/distinct-counter.ts';
import { createAccessFixture, enterpriseUser, type AccessFixture } from './access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from './app.ts';
import type { DatabaseFactory } from './databases.ts';
import { ingestSlice } from './search-corpus.ts';

export type Json = Record<string, unknown>;

const operator = { kind: 'operator' } as const;

export interface Called {
  readonly res: Response;
  readonly body: Json;
}

export interface ScreeningWorld {
  readonly database: OpenedDatabase;
  readonly clock: SettableClock;
  /** Entitled for Enterprise only (the production default). */
  readonly t: TestApp;
  /** Over the same database, entitled for every tier. */
  readonly open: TestApp;
  /** The same wiring over a database that is down (the matrix's identity-store case). */
  readonly down: TestApp;
  readonly fixture: AccessFixture;
  readonly index: PostgresSearchIndex;
  /** A new user and key of `tier`, with its own billing account holding `credits`. */
  user(label: string, options?: { tier?: Tier; limits?: LimitOverrides; credits?: number }): Promise<{ userId: string; key: string }>;
  /** Another app over the same database with its own party index or distinct counter. */
  variant(options: { parties?: PartySearchIndex; counter?: DistinctCounter }): TestApp;
  close(): Promise<void>;
}

export async function openScreeningWorld(factory: DatabaseFactory, start = new Date('2026-11-20T10:00:00Z')): Promise<ScreeningWorld> {
  const database = await factory.open();
  const clock = new SettableClock(start);
  const index = new PostgresSearchIndex(database.db);
  await ingestSlice(database.db);
  await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => clock.now() }).catchUp();
  const t = buildTestApp({ db: database.db, clock, index });
  const open = buildTestApp({ db: database.db, clock, index, entitledTiers: TIERS });
  const closed = await openPglite(undefined);
  await closed.close();
  const down = buildTestApp({ db: closed.db, clock });
  const fixture = await createAccessFixture(t.application.accounts, clock);
  await t.application.credits.grant(fixture.organizationId, { amount: 1_000_000, source: 'grant' });
  await t.application.credits.grant(fixture.allowlistedOrganizationId, { amount: 10_000, source: 'grant' });
  let n = 0;
  return {
    database,
    clock,
    t,
    open,
    down,
    fixture,
    index,
    async user(label, options = {}) {
      n += 1;
      const registered = await t.application.accounts.registerUser(
        enterpriseUser(`${label}.${String(n)}.${String(Date.now())}@screening.example`, {
          tier: options.tier ?? 'enterprise',
          limitOverrides: options.limits ?? {},
        }),
        operator,
      );
      if (!registered.ok) throw new Error(`user refused: ${registered.error.tag}`);
      const key = await t.application.accounts.createKey(registered.value.userId, label, operator);
      if (!key.ok) throw new Error(`key refused: ${key.error.tag}`);
      if ((options.credits ?? 0) > 0)
        await t.application.credits.grant(registered.value.userId, { amount: options.credits ?? 0, source: 'grant' });
      return { userId: registered.value.userId, key: key.value.fullKey };
    },
    variant(options) {
      return buildTestApp({
        db: database.db,
        clock,
        index,
        ...(options.parties ? { parties: options.parties } : {}),
        ...(options.counter ? { distinctKeys: options.counter } : {}),
      });
    },
    close: () => database.close(),
  };
}

export async function post(app: TestApp, key: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Called> {
  const res = await app.app.request(`${BASE}${path}`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { res, body: (await res.json()) as Json };
}

/** Spendable credits of a billing account. */
export async function balanceOf(world: ScreeningWorld, account: string): Promise<number> {
  return (await world.t.application.credits.balance(account)).balance;
}

/** Everything charged to an account, from the ledger's charge rows. */
export async function chargedTo(world: ScreeningWorld, account: string): Promise<number> {
  const rows = await world.database.db.selectFrom('creditCharges').select('amount').where('accountId', '=', account).execute();
  return rows.reduce((sum, r) => sum + r.amount, 0);
}

/** Real party names of the slice: petitioners of Supreme Court records, one word or more each. */
export async function realPartyNames(world: ScreeningWorld, count: number): Promise<string[]> {
  const rows = await world.database.db
    .selectFrom('cases')
    .select('petitioners')
    .where('source', '=', 'sc-judgments-metadata')
    .orderBy('caseId')
    .limit(count * 4)
    .execute();
  const names = rows
    .map((r) => (r.petitioners as { name: string }[])[0]?.name.trim() ?? '')
    .filter((name) => /^[A-Z][A-Z .]{5,60}$/.test(name) && !/\b(STATE|UNION|INDIA|LTD|CORPORATION|COMMISSIONER)\b/.test(name));
  return [...new Set(names)].slice(0, count);
}
