/**
 * The Meilisearch index's schema, versioned like the SQL migrations. Each version names the
 * whole settings object (not a diff: a settings update keeps whatever it does not name) and
 * whether its documents changed shape. A settings-only version is applied in place:
 * Meilisearch re-indexes in the background and keeps answering from the old state until the
 * task commits. A version whose documents changed cannot be brought up to date in place, so
 * the live index keeps its version and is flagged for a full reindex, which fills a new
 * index beside it and swaps it in (see SearchIndexProjector.reindex).
 *
 * The applied version is stored in Meilisearch itself, in a small `<uid>_schema` index, so
 * it travels with the data it describes (a wiped server starts from version 0 again).
 */
import type { EnqueuedTask, Index, Meilisearch, Settings, Task } from 'meilisearch';

export interface IndexMigration {
  readonly version: number;
  readonly description: string;
  readonly settings: Settings;
  /** The documents' shape changed: only a full reindex brings an existing index up to date. */
  readonly reindex: boolean;
}

export interface SchemaState {
  /** The version the live index is at after opening. */
  readonly version: number;
  /** A pending version changed the documents: the index needs a full reindex to reach the latest. */
  readonly needsReindex: boolean;
}

/** Long enough for a settings change or a batch of long judgments over a million documents. */
const TASK_TIMEOUT_MS = 30 * 60_000;
const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 500;

interface SchemaDocument {
  id: string;
  version: number;
}

/**
 * Waits for tasks in bulk: one `GET /tasks?uids=…` a poll for all of them, backing off from
 * 25 to 500 ms. Ours, not the client's waitForTask, which polls one task at a time and, when
 * a poll fails (the server restarting), leaves its timeout timer running for the whole timeout.
 * Rejects when a task failed, was cancelled, or did not finish in time.
 */
export async function settled(client: Meilisearch, enqueued: readonly Promise<EnqueuedTask>[]): Promise<Task[]> {
  const uids = (await Promise.all(enqueued)).map((t) => t.taskUid);
  const deadline = Date.now() + TASK_TIMEOUT_MS;
  for (let pause = POLL_FIRST_MS; ; pause = Math.min(POLL_MAX_MS, pause * 2)) {
    const { results } = await client.tasks.getTasks({ uids, limit: uids.length });
    if (results.length === uids.length && results.every((t) => t.status !== 'enqueued' && t.status !== 'processing')) return results;
    if (Date.now() > deadline) throw new Error(`Meilisearch tasks ${uids.join(', ')} did not finish in ${String(TASK_TIMEOUT_MS)} ms`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** As `settled`, and rejects unless every task succeeded. */
export async function succeeded(client: Meilisearch, enqueued: readonly Promise<EnqueuedTask>[]): Promise<void> {
  for (const task of await settled(client, enqueued))
    if (task.status !== 'succeeded')
      throw new Error(`Meilisearch task ${String(task.uid)} ${task.status}: ${task.error?.message ?? 'no error given'}`);
}

export function latest(migrations: readonly IndexMigration[]): IndexMigration {
  const last = migrations.at(-1);
  if (!last) throw new Error('the Meilisearch index schema has no version');
  return last;
}

function schemaIndex(client: Meilisearch, uid: string): Index<SchemaDocument> {
  return client.index<SchemaDocument>(`${uid}_schema`);
}

/** Creates the index unless it exists; true when this call created it. */
export async function ensureIndex(client: Meilisearch, uid: string): Promise<boolean> {
  const [created] = await settled(client, [client.createIndex(uid, { primaryKey: 'id' })]);
  if (created?.status === 'succeeded') return true;
  if (created?.error?.code === 'index_already_exists') return false;
  throw new Error(`Meilisearch could not create index ${uid}: ${created?.error?.message ?? 'no error given'}`);
}

/** Deletes the index if it exists. */
export async function dropIndex(client: Meilisearch, uid: string): Promise<void> {
  const [dropped] = await settled(client, [client.deleteIndex(uid)]);
  if (dropped?.status !== 'succeeded' && dropped?.error?.code !== 'index_not_found')
    throw new Error(`Meilisearch could not delete index ${uid}: ${dropped?.error?.message ?? 'no error given'}`);
}

async function appliedVersion(client: Meilisearch, uid: string): Promise<number> {
  await ensureIndex(client, `${uid}_schema`);
  const found = await schemaIndex(client, uid).getDocuments({ limit: 1 });
  return found.results[0]?.version ?? 0;
}

export async function recordVersion(client: Meilisearch, uid: string, version: number): Promise<void> {
  await ensureIndex(client, `${uid}_schema`);
  await succeeded(client, [schemaIndex(client, uid).addDocuments([{ id: 'applied', version }])]);
}

export async function applySettings(client: Meilisearch, uid: string, settings: Settings): Promise<void> {
  await succeeded(client, [client.index(uid).updateSettings(settings)]);
}

/**
 * Brings the live index to the latest version it can reach in place. A new index gets the
 * latest settings directly; an existing one gets each pending settings-only version in
 * order, and stops before the first that changed documents (that one needs a reindex).
 */
export async function migrateIndex(client: Meilisearch, uid: string, migrations: readonly IndexMigration[]): Promise<SchemaState> {
  const created = await ensureIndex(client, uid);
  const target = latest(migrations);
  const applied = await appliedVersion(client, uid);
  const empty = created || (applied === 0 && (await client.index(uid).getStats()).numberOfDocuments === 0);
  if (empty) {
    await applySettings(client, uid, target.settings);
    await recordVersion(client, uid, target.version);
    return { version: target.version, needsReindex: false };
  }
  let version = applied;
  for (const migration of migrations.filter((m) => m.version > applied)) {
    if (migration.reindex) return { version, needsReindex: true };
    await applySettings(client, uid, migration.settings);
    await recordVersion(client, uid, migration.version);
    version = migration.version;
  }
  return { version, needsReindex: false };
}
