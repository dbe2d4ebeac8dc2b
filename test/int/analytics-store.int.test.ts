/**
 * One contract for the analytics stores present: embedded ClickHouse (chdb) always, a
 * ClickHouse server when TEST_CLICKHOUSE_URL is set (in a database of its own, dropped after).
 * Each backend is opened once per file, since chdb binds one data directory per process.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { migrateAnalytics } from '../../src/adapters/clickhouse/migrate.ts';
import { openAnalyticsStore, type OpenedAnalyticsStore } from '../../src/adapters/clickhouse/open.ts';
import { AnalyticsError } from '../../src/ports/analytics.ts';

interface Backend {
  name: string;
  skip: string | false;
  open: () => Promise<{ store: OpenedAnalyticsStore; dispose: () => Promise<void> }>;
}

const clickhouseUrl = process.env.TEST_CLICKHOUSE_URL;

const backends: Backend[] = [
  {
    name: 'chdb',
    skip: false,
    open: async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'court-records-analytics-'));
      const store = await openAnalyticsStore({ DATA_DIR: dataDir });
      return { store, dispose: async () => rmSync(dataDir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'clickhouse server',
    skip: clickhouseUrl ? false : 'TEST_CLICKHOUSE_URL is not set, so there is no ClickHouse server to run against',
    open: async () => {
      const database = `analytics_test_${randomUUID().replaceAll('-', '')}`;
      const admin = await openAnalyticsStore({ CLICKHOUSE_URL: clickhouseUrl, DATA_DIR: '' });
      await admin.command(`CREATE DATABASE ${database}`);
      const url = new URL(clickhouseUrl!);
      url.pathname = `/${database}`;
      const store = await openAnalyticsStore({ CLICKHOUSE_URL: url.toString(), DATA_DIR: '' });
      return {
        store,
        dispose: async () => {
          await admin.command(`DROP DATABASE ${database}`);
          await admin.close();
        },
      };
    },
  },
];

for (const backend of backends) if (backend.skip) console.log(`analytics store on ${backend.name} skipped: ${backend.skip}`);

interface AuditRow {
  event_id: string;
  occurred_at: string;
  request_id: string;
  key_id: string;
  user_id: string;
  organization_id: string | null;
  endpoint: string;
  method: string;
  status: number;
  response_ms: number;
  credits_deducted: number;
  client_address: string;
  user_agent: string;
  detail: string;
}

function auditEvent(eventId: string, overrides: Partial<Record<keyof AuditRow, unknown>> = {}): Record<string, unknown> {
  return {
    event_id: eventId,
    occurred_at: new Date('2026-11-26T10:15:30.123Z'),
    request_id: `req-${eventId}`,
    key_id: 'key_1',
    user_id: 'user_1',
    organization_id: null,
    endpoint: '/cases/:id',
    method: 'GET',
    status: 200,
    response_ms: 12,
    credits_deducted: 1,
    client_address: '203.0.113.7',
    user_agent: 'curl/8.5.0',
    detail: '',
    ...overrides,
  };
}

/** The recommended read: FINAL collapses replayed copies of an event before counting. */
const USAGE_BY_KEY = `
  SELECT key_id, count() AS requests, sum(credits_deducted) AS credits
  FROM audit_events FINAL
  WHERE request_id IN {requests:Array(String)}
  GROUP BY key_id`;

for (const backend of backends) {
  describe(`analytics store on ${backend.name}`, { skip: backend.skip }, () => {
    let store: OpenedAnalyticsStore;
    let dispose: () => Promise<void>;
    const run = randomUUID().slice(0, 8);
    const id = (name: string) => `${run}-${name}`;

    before(async () => {
      ({ store, dispose } = await backend.open());
      assert.deepEqual(await migrateAnalytics(store), {
        applied: ['0001_usage_audit', '0002_audit_detail', '0003_test_mode_audit'],
        alreadyApplied: 0,
      });
    });

    after(async () => {
      await store.close();
      await dispose();
    });

    it('applies nothing when migrated a second time', async () => {
      assert.deepEqual(await migrateAnalytics(store), { applied: [], alreadyApplied: 3 });
      const recorded = await store.query<{ n: string }>('SELECT count() AS n FROM schema_migrations FINAL');
      assert.deepEqual(recorded, [{ n: '3' }]);
      await store.ping();
    });

    it('round-trips every audit column type', async () => {
      await store.insert('audit_events', [
        auditEvent(id('types-a'), { status: 503, response_ms: 4_294_967_295, credits_deducted: 0 }),
        auditEvent(id('types-b'), {
          occurred_at: new Date('2026-11-26T23:59:59.000Z'),
          organization_id: 'org_ñ_1',
          method: 'POST',
          endpoint: '/searches',
          client_address: '2001:db8::1',
        }),
      ]);
      const rows = await store.query<AuditRow>('SELECT * FROM audit_events FINAL WHERE event_id IN {ids:Array(String)} ORDER BY event_id', {
        ids: [id('types-a'), id('types-b')],
      });
      assert.deepEqual(rows, [
        {
          ...auditEvent(id('types-a')),
          occurred_at: '2026-11-26 10:15:30.123',
          status: 503,
          response_ms: 4_294_967_295,
          credits_deducted: 0,
        },
        {
          ...auditEvent(id('types-b')),
          occurred_at: '2026-11-26 23:59:59.000',
          organization_id: 'org_ñ_1',
          method: 'POST',
          endpoint: '/searches',
          client_address: '2001:db8::1',
        },
      ]);
      const at = await store.query<{ event_id: string }>(
        `SELECT event_id FROM audit_events FINAL
         WHERE occurred_at = {at:DateTime64(3, 'UTC')} AND organization_id IS NULL AND event_id IN {ids:Array(String)}`,
        { at: new Date('2026-11-26T10:15:30.123Z'), ids: [id('types-a'), id('types-b')] },
      );
      assert.deepEqual(at, [{ event_id: id('types-a') }]);
    });

    it('binds hostile values as values, never as SQL', async () => {
      const hostile = [
        "Mozilla/5.0 'x' \\ ñ",
        "'); DROP TABLE audit_events; --",
        "\\'; SELECT 1; --",
        'tab\tnew\nline\r\0nul',
        '{ua:String} 日本語 🚀',
      ];
      await store.insert(
        'audit_events',
        hostile.map((userAgent, i) => auditEvent(id(`hostile-${i}`), { user_agent: userAgent })),
      );
      for (const [i, userAgent] of hostile.entries()) {
        const echoed = await store.query<{ v: string }>('SELECT {v:String} AS v', { v: userAgent });
        assert.deepEqual(echoed, [{ v: userAgent }]);
        const found = await store.query<{ event_id: string }>(
          'SELECT event_id FROM audit_events FINAL WHERE user_agent = {ua:String} AND event_id LIKE {prefix:String}',
          { ua: userAgent, prefix: `${run}-hostile-%` },
        );
        assert.deepEqual(found, [{ event_id: id(`hostile-${i}`) }]);
      }
      await assert.rejects(store.query('SELECT 1', { 'x} OR 1': 1 }), TypeError);
      await assert.rejects(store.insert('audit_events; DROP TABLE audit_events', [auditEvent(id('bad'))]), TypeError);
      assert.deepEqual(
        await store.query("SELECT count() AS n FROM system.tables WHERE name = 'audit_events' AND database = currentDatabase()"),
        [{ n: '1' }],
      );
    });

    it('counts a replayed event once when read with FINAL', async () => {
      const first = auditEvent(id('replay-a'), { request_id: id('replay-req-a'), key_id: id('key'), credits_deducted: 5 });
      const second = auditEvent(id('replay-b'), { request_id: id('replay-req-b'), key_id: id('key'), credits_deducted: 7 });
      const requests = [id('replay-req-a'), id('replay-req-b')];
      // Merges would collapse the copies on their own; stopping them makes FINAL do the work.
      await store.command('SYSTEM STOP MERGES audit_events');
      try {
        await store.insert('audit_events', [first]);
        // A projector restarting before its checkpoint delivers the first event again.
        await store.insert('audit_events', [first, second]);
        const raw = await store.query<{ n: string }>('SELECT count() AS n FROM audit_events WHERE request_id IN {requests:Array(String)}', {
          requests,
        });
        assert.deepEqual(raw, [{ n: '3' }], 'both copies are stored');
        assert.deepEqual(await store.query(USAGE_BY_KEY, { requests }), [{ key_id: id('key'), requests: '2', credits: '12' }]);
      } finally {
        await store.command('SYSTEM START MERGES audit_events');
      }
      await store.command('OPTIMIZE TABLE audit_events FINAL');
      const merged = await store.query<{ n: string }>(
        'SELECT count() AS n FROM audit_events WHERE request_id IN {requests:Array(String)}',
        {
          requests,
        },
      );
      assert.deepEqual(merged, [{ n: '2' }], 'a merge keeps one copy');
    });

    it('drops a retried batch that carries the same dedup token', async () => {
      const batch = [auditEvent(id('token-a')), auditEvent(id('token-b'))];
      await store.insert('audit_events', batch, { dedupToken: id('batch-1') });
      await store.insert('audit_events', batch, { dedupToken: id('batch-1') });
      const raw = await store.query<{ n: string }>('SELECT count() AS n FROM audit_events WHERE event_id IN {ids:Array(String)}', {
        ids: [id('token-a'), id('token-b')],
      });
      assert.deepEqual(raw, [{ n: '2' }]);
    });

    it('keeps the event loop turning while heavy queries run', async () => {
      const gaps: number[] = [];
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        gaps.push(now - last);
        last = now;
      }, 5);
      const started = performance.now();
      try {
        const results = await Promise.all([
          store.query<{ m: string }>('SELECT max(sipHash64(number)) AS m FROM numbers(40000000)'),
          store.query<{ n: string }>('SELECT count() AS n FROM numbers(1000)'),
          store.query<{ v: number }>('SELECT {v:UInt32} AS v', { v: 7 }),
        ]);
        assert.deepEqual(results.slice(1), [[{ n: '1000' }], [{ v: 7 }]]);
      } finally {
        clearInterval(timer);
      }
      const elapsed = performance.now() - started;
      assert.ok(elapsed > 100, `the heavy query should take a while (took ${elapsed.toFixed(0)} ms)`);
      assert.ok(gaps.length >= elapsed / 5 / 3, `${gaps.length} ticks in ${elapsed.toFixed(0)} ms`);
      // A loop blocked by the query would show one gap about as long as the whole query.
      assert.ok(Math.max(...gaps) < elapsed / 3, `longest stall ${Math.max(...gaps).toFixed(0)} ms of ${elapsed.toFixed(0)} ms`);
    });

    it('rejects with the ClickHouse message, code and name, and keeps working', async () => {
      await assert.rejects(store.query('SELECT * FROM no_such_table'), (error: unknown) => {
        assert.ok(error instanceof AnalyticsError);
        assert.equal(error.code, 60);
        assert.equal(error.type, 'UNKNOWN_TABLE');
        assert.match(error.message, /no_such_table/);
        assert.doesNotMatch(error.message, /^Code:/);
        return true;
      });
      await assert.rejects(store.command('CREATE TABLEE x (a UInt8) ENGINE = Memory'), {
        name: 'AnalyticsError',
        code: 62,
        type: 'SYNTAX_ERROR',
      });
      await assert.rejects(store.insert('audit_events', [{ event_id: id('bad-column'), no_such_column: 1 }]), AnalyticsError);
      await assert.rejects(store.query('SELECT {n:UInt8} AS n', { n: 'not a number' }), AnalyticsError);
      assert.deepEqual(await store.query('SELECT 1 AS one'), [{ one: 1 }]);
    });
  });
}
