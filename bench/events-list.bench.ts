/**
 * GET /events' reads at the application layer (AccountEvents), on the embedded default and
 * on PostgreSQL: 200,000 SYNTHETIC events (20 accounts, two types split by account so one
 * account never had the filtered type, the worst case for a type filter), then a page of 100
 * newest first, a catch-up page from a cursor, a type-filtered page and one event by id, each
 * 200 times, median of 3 runs beside the target. Standalone (not in `npm run bench`):
 * `TEST_DATABASE_URL=… npx tsx bench/events-list.bench.ts`; EVENTS_BENCH_ROWS changes the size.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { AccountEvents } from '../src/application/webhooks/account-events.ts';
import { systemClock } from '../src/ports/clock.ts';
import { databases } from '../test/support/databases.ts';

const ROWS = Number(process.env.EVENTS_BENCH_ROWS ?? 200_000);
/** Target: a page is one index range read, well inside a keyed read's budget. */
const TARGET_MS = 10;

for (const factory of databases) {
  const database = await factory.open();
  const db = database.db;
  await sql`insert into account_events (event_id, account_id, mode, type, api_version, data, created_at, source_event_id)
    select 'evt_' || g, 'acct_' || (g % 20), 'live', case when g % 2 = 0 then 'timeline.completed' else 'analysis.stored' end,
      '2026-11-29', '{"requestId":"r","caseId":"c"}'::jsonb, now() - (g || ' seconds')::interval * 13, 'synthetic:' || g
    from generate_series(1, ${ROWS}) g`.execute(db);
  await sql`analyze account_events`.execute(db);
  const events = new AccountEvents({ db, clock: systemClock, retentionDays: 30 });
  const cases = {
    'page of 100, newest first': () => events.page('acct_7', 'live', { limit: 100, order: 'desc' }),
    'catch-up page from a cursor': () =>
      events.page('acct_7', 'live', { limit: 100, order: 'asc', startingAfter: `evt_${String(ROWS / 2 + 7)}` }),
    'type the account never had': () => events.page('acct_7', 'live', { limit: 100, order: 'desc', types: ['timeline.completed'] }),
    'one event by id': () => events.get('acct_7', 'live', `evt_${String(ROWS - 13)}`),
  };
  const runs = new Map<string, number[]>();
  for (let r = 0; r < 3; r += 1)
    for (const [name, call] of Object.entries(cases)) {
      const start = performance.now();
      for (let i = 0; i < 200; i += 1) await call();
      runs.set(name, [...(runs.get(name) ?? []), (performance.now() - start) / 200]);
    }
  for (const [name, values] of runs) {
    const median = [...values].sort((a, b) => a - b)[1]!;
    console.log(
      `${factory.name} ${name}: ${median.toFixed(2)} ms per call (target < ${String(TARGET_MS)} ms: ${median < TARGET_MS ? 'met' : 'missed'})`,
    );
  }
  await database.close();
}
