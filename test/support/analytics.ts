/** A real embedded ClickHouse (chdb) in a throw-away folder, migrated, for tests of analytics reads. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openChdbStore, type ChdbAnalyticsStore } from '../../src/adapters/clickhouse/chdb-store.ts';
import { migrateAnalytics } from '../../src/adapters/clickhouse/migrate.ts';

export async function openTestAnalytics(): Promise<{ store: ChdbAnalyticsStore; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'test-chdb-'));
  const store = await openChdbStore(dir);
  await migrateAnalytics(store);
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
