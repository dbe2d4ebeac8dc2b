/**
 * The analytics store on a ClickHouse server (24.8 or later) through the official HTTP
 * client: JSONEachRow both ways, native query parameters, the database from the URL's path.
 * Production uses this when CLICKHOUSE_URL is set.
 */
import { ClickHouseError, createClient, type ClickHouseClient } from '@clickhouse/client';
import { AnalyticsError, type AnalyticsParam, type AnalyticsStore, type InsertOptions } from '../../ports/analytics.ts';
import { assertTableName, engineError, SHARED_SETTINGS, toWireParams, toWireRow } from './wire.ts';

/** Runs a client call, turning the server's errors into AnalyticsError. */
async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ClickHouseError) throw new AnalyticsError(error.message.trim(), Number(error.code), error.type, { cause: error });
    throw error;
  }
}

export class HttpAnalyticsStore implements AnalyticsStore {
  readonly kind = 'clickhouse';

  constructor(private readonly client: ClickHouseClient) {}

  async command(sql: string): Promise<void> {
    await guarded(() => this.client.command({ query: sql }));
  }

  async insert(table: string, rows: readonly Record<string, unknown>[], options: InsertOptions = {}): Promise<void> {
    assertTableName(table);
    if (rows.length === 0) return;
    const values = rows.map(toWireRow);
    const settings = options.dedupToken === undefined ? {} : { insert_deduplication_token: options.dedupToken };
    await guarded(() => this.client.insert({ table, values, format: 'JSONEachRow', clickhouse_settings: settings }));
  }

  async query<T>(sql: string, params?: Readonly<Record<string, AnalyticsParam>>): Promise<T[]> {
    const queryParams = toWireParams(params);
    return guarded(async () => {
      const result = await this.client.query({ query: sql, query_params: queryParams, format: 'JSONEachRow' });
      return result.json<T>();
    });
  }

  async ping(): Promise<void> {
    const result = await this.client.ping();
    if (!result.success) throw engineError(result.error.message, result.error);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

export function openHttpStore(url: string): HttpAnalyticsStore {
  return new HttpAnalyticsStore(createClient({ url, application: 'court-records-api', clickhouse_settings: SHARED_SETTINGS }));
}
