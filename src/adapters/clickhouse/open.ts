/**
 * Opens the analytics store the configuration asks for: the ClickHouse server at
 * CLICKHOUSE_URL when set, otherwise embedded ClickHouse under DATA_DIR/clickhouse.
 * chdb is imported only on that path, so a server deployment never loads its native library.
 * Migrations are separate (migrateAnalytics) so the caller decides when schema changes run.
 */
import type { AnalyticsStore } from '../../ports/analytics.ts';
import { openHttpStore } from './http-store.ts';

export type OpenedAnalyticsStore = AnalyticsStore & { readonly kind: 'clickhouse' | 'chdb' };

export interface AnalyticsStoreConfig {
  CLICKHOUSE_URL?: string | undefined;
  DATA_DIR: string;
}

export async function openAnalyticsStore(config: AnalyticsStoreConfig): Promise<OpenedAnalyticsStore> {
  if (config.CLICKHOUSE_URL) {
    const store = openHttpStore(config.CLICKHOUSE_URL);
    try {
      await store.ping();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }
  const { openChdbStore } = await import('./chdb-store.ts');
  return openChdbStore(config.DATA_DIR);
}
