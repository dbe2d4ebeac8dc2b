/**
 * Analytics store figures: audit rows inserted per second (50,000 rows in batches of
 * 5,000) and the latency of the recommended usage query (per key and day, read with FINAL),
 * median of 5, next to the same query without FINAL to show what deduplication costs.
 * Embedded ClickHouse always; a ClickHouse server when a URL is given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateAnalytics } from '../src/adapters/clickhouse/migrate.ts';
import { openAnalyticsStore } from '../src/adapters/clickhouse/open.ts';
import type { AnalyticsStore } from '../src/ports/analytics.ts';
import { median, repeat } from './stats.ts';

const ROWS = 50_000;
const BATCH = 5_000;
const RUNS = 5;
const DAY_MS = 86_400_000;
const START = Date.parse('2026-11-01T00:00:00.000Z');
const ENDPOINTS = ['/cases/:id', '/cases', '/searches', '/judges/:id', '/me'];

export interface AnalyticsFigures {
  rows: number;
  batchSize: number;
  insertRowsPerSecond: number;
  groupByFinalMedianMs: number;
  groupByWithoutFinalMedianMs: number;
  groups: number;
}

const USAGE_BY_KEY_DAY = (final: string) => `
  SELECT key_id, toDate(occurred_at) AS day, count() AS requests, sum(credits_deducted) AS credits
  FROM audit_events ${final}
  WHERE occurred_at >= {from:DateTime64(3, 'UTC')} AND occurred_at < {to:DateTime64(3, 'UTC')}
  GROUP BY key_id, day`;

function auditRow(run: string, i: number): Record<string, unknown> {
  return {
    event_id: `${run}-${i}`,
    occurred_at: new Date(START + ((i * 52_711) % (30 * DAY_MS))),
    request_id: `req-${run}-${i}`,
    key_id: `key_${i % 200}`,
    user_id: `user_${i % 120}`,
    organization_id: i % 3 === 0 ? null : `org_${i % 15}`,
    endpoint: ENDPOINTS[i % ENDPOINTS.length],
    method: i % 7 === 0 ? 'POST' : 'GET',
    status: i % 50 === 0 ? 429 : 200,
    response_ms: 5 + (i % 400),
    credits_deducted: i % 4,
    client_address: `198.51.100.${i % 250}`,
    user_agent: 'bench/1.0',
  };
}

async function measure(store: AnalyticsStore): Promise<AnalyticsFigures> {
  await migrateAnalytics(store);
  const run = `bench-${Date.now()}`;
  const started = performance.now();
  for (let offset = 0; offset < ROWS; offset += BATCH) {
    const batch = Array.from({ length: BATCH }, (_, j) => auditRow(run, offset + j));
    await store.insert('audit_events', batch, { dedupToken: `${run}-${offset}` });
  }
  const insertRowsPerSecond = ROWS / ((performance.now() - started) / 1000);
  const window = { from: new Date(START), to: new Date(START + 30 * DAY_MS) };
  let groups = 0;
  const timed = (sql: string) =>
    repeat(RUNS, async () => {
      const t0 = performance.now();
      groups = (await store.query(sql, window)).length;
      return performance.now() - t0;
    });
  const withFinal = await timed(USAGE_BY_KEY_DAY('FINAL'));
  const withoutFinal = await timed(USAGE_BY_KEY_DAY(''));
  return {
    rows: ROWS,
    batchSize: BATCH,
    insertRowsPerSecond,
    groupByFinalMedianMs: median(withFinal),
    groupByWithoutFinalMedianMs: median(withoutFinal),
    groups,
  };
}

export async function benchAnalytics(clickhouseUrl?: string): Promise<{ chdb: AnalyticsFigures; clickhouse?: AnalyticsFigures }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'court-records-analytics-bench-'));
  const embedded = await openAnalyticsStore({ DATA_DIR: dataDir });
  try {
    const chdb = await measure(embedded);
    if (!clickhouseUrl) return { chdb };
    const server = await openAnalyticsStore({ CLICKHOUSE_URL: clickhouseUrl, DATA_DIR: dataDir });
    try {
      return { chdb, clickhouse: await measure(server) };
    } finally {
      await server.close();
    }
  } finally {
    await embedded.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
