/**
 * Event-store appends per second, durable, on PGlite (files on disk) and on PostgreSQL
 * (when BENCH_DATABASE_URL or TEST_DATABASE_URL is set): one hot stream with expected
 * versions, and 1,000 new streams written by 10 concurrent writers. Medians of 5 runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { PostgresEventStore } from '../src/adapters/postgres/event-store.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite, openPostgres, type OpenedDatabase } from '../src/db/open.ts';
import { median, repeat } from './stats.ts';

const RUNS = 5;
const SINGLE_STREAM_APPENDS = 300;
const STREAMS = 1000;
const WRITERS = 10;

const metadata = { actor: 'bench', occurredAt: '2026-01-01T00:00:00.000Z' };

async function singleStream(store: PostgresEventStore, run: number): Promise<number> {
  const started = performance.now();
  for (let v = 0; v < SINGLE_STREAM_APPENDS; v += 1) {
    await store.append(`bench-single-${run}`, v, [{ type: 'CreditsReserved', data: { amount: 100, v } }], {
      streamType: 'bench',
      metadata,
    });
  }
  return SINGLE_STREAM_APPENDS / ((performance.now() - started) / 1000);
}

async function manyStreams(store: PostgresEventStore, run: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const writer = async () => {
    for (let i = next++; i < STREAMS; i = next++) {
      await store.append(`bench-many-${run}-${i}`, 0, [{ type: 'KeyCreated', data: { i } }], { streamType: 'bench', metadata });
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return STREAMS / ((performance.now() - started) / 1000);
}

async function measure(database: OpenedDatabase): Promise<{ single: number; many: number }> {
  await migrate(database.db);
  const store = new PostgresEventStore(database.db);
  const single = median(await repeat(RUNS, (i) => singleStream(store, i)));
  const many = median(await repeat(RUNS, (i) => manyStreams(store, i)));
  return { single, many };
}

export interface EventStoreFigures {
  pglite: { single: number; many: number };
  postgres?: { single: number; many: number };
}

export async function benchEventStore(adminUrl: string | undefined): Promise<EventStoreFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
  const lite = await openPglite(dir);
  let pglite;
  try {
    pglite = await measure(lite);
  } finally {
    await lite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (!adminUrl) return { pglite };
  const name = `bench_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pg = await openPostgres(url.toString(), { max: WRITERS });
  try {
    return { pglite, postgres: await measure(pg) };
  } finally {
    await pg.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
