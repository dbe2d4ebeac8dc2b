/**
 * Test mode is the live graph (buildGraph) over test mode's adapters: what tells the two
 * apart is what openTestModeAdapters opens and chooses, never a branch in the graph. Here,
 * against a real Temporal dev server and a real embedded ClickHouse: test mode's workflows
 * start on its own queue under `test-` ids, and its audit trail is projected into, and
 * read from, its own analytics table while the live one stays empty.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { LocalUseEmbedder } from '../../src/adapters/embeddings/local-use-embedder.ts';
import { buildGraph, type Graph } from '../../src/composition/graph.ts';
import { lifecycle, type Lifecycle } from '../../src/composition/lifecycle.ts';
import { openTestModeAdapters } from '../../src/composition/test-mode-adapters.ts';
import type { Adapters } from '../../src/composition/adapters.ts';
import { loadConfig } from '../../src/config.ts';
import { openPglite, type OpenedDatabase } from '../../src/db/open.ts';
import { migrate } from '../../src/db/migrate.ts';
import { randomIds, systemClock } from '../../src/ports/clock.ts';
import { AUDIT_TABLES } from '../../src/projections/audit-to-clickhouse.ts';
import { TEST_MODE_WORKFLOWS } from '../../workflows/task-queues.ts';
import { openTestAnalytics } from '../support/analytics.ts';
import { corpusDir } from '../support/corpus.ts';
import { NO_TEMPORAL_CLI, startTestTemporal, temporalCli, type TestTemporal } from '../support/temporal.ts';

describe('test mode: the live graph over test mode’s adapters', { skip: temporalCli() ? false : NO_TEMPORAL_CLI, timeout: 300_000 }, () => {
  let temporal: TestTemporal;
  let analytics: Awaited<ReturnType<typeof openTestAnalytics>>;
  let liveDatabase: OpenedDatabase;
  let dataDir: string;
  let life: Lifecycle;
  let adapters: Adapters;
  let graph: Graph;
  const failures: string[] = [];

  before(async () => {
    temporal = await startTestTemporal();
    analytics = await openTestAnalytics();
    liveDatabase = await openPglite(undefined);
    await migrate(liveDatabase.db);
    dataDir = mkdtempSync(join(tmpdir(), 'test-mode-graph-'));
    const config = loadConfig({ DATA_DIR: dataDir, CORPUS_DIR: corpusDir, LOG_LEVEL: 'silent' });
    const logger = pino({ level: 'silent' });
    life = lifecycle({ onFailure: (step, err) => failures.push(`${step}: ${String(err)}`) });
    adapters = await openTestModeAdapters(
      config,
      {
        database: liveDatabase,
        analytics: { store: analytics.store, ready: true },
        keyHashSecret: 'test-mode-graph-key-hash-secret-of-some-length',
        adminToken: undefined,
        embedder: new LocalUseEmbedder(),
        payloadCodec: temporal.codec,
        workflowRuntime: { engine: { runtime: temporal.runtime, dataConverter: temporal.dataConverter } },
      },
      { clock: systemClock, logger, life },
    );
    graph = buildGraph(adapters, { config, clock: systemClock, ids: randomIds, logger, socketAddress: () => '127.0.0.1' });
  });

  after(async () => {
    await life.stop(Number.POSITIVE_INFINITY);
    await liveDatabase.close();
    await analytics.close();
    await temporal.close();
    rmSync(dataDir, { recursive: true, force: true });
    assert.deepEqual(failures, [], 'everything test mode opened closed cleanly');
  });

  it('starts its workflows on test mode’s queue under test- ids', async () => {
    const runId = `analysis-placement-${String(Date.now())}`;
    const started = await adapters.workflowRuntime.workflows.startAnalysis(runId, { accountId: 'acct-placement' });
    assert.equal(started, 'started');
    const handle = temporal.runtime.client.workflow.getHandle(`${TEST_MODE_WORKFLOWS.idPrefix}${runId}`);
    try {
      assert.equal((await handle.describe()).taskQueue, TEST_MODE_WORKFLOWS.queues.analysis);
    } finally {
      await handle.terminate('placement checked');
    }
  });

  it('projects its audit trail into test mode’s table and reads it from there; the live table stays empty', async () => {
    const projector = graph.tasks.find((task) => task.name === 'audit projector');
    assert.ok(projector, 'the graph runs an audit projector over an analytics store that is ready');
    const requestId = `req-test-mode-${String(Date.now())}`;
    await graph.application.audit.record({
      occurredAt: new Date().toISOString(),
      requestId,
      keyId: 'key-test-mode',
      userId: 'user-test-mode',
      organizationId: null,
      endpoint: '/search/cases',
      method: 'POST',
      status: 200,
      responseMs: 12,
      creditsDeducted: 5,
      clientAddress: '127.0.0.1',
      userAgent: 'test-mode-graph',
    });
    life.task(projector);
    life.start();
    const rows = async (table: string) =>
      analytics.store.query<{ request_id: string }>(`SELECT request_id FROM ${table} WHERE request_id = {requestId:String}`, {
        requestId,
      });
    for (let i = 0; i < 100 && (await rows(AUDIT_TABLES.test)).length === 0; i += 1) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await rows(AUDIT_TABLES.test)).length, 1);
    assert.equal((await rows(AUDIT_TABLES.live)).length, 0);
    const page = await graph.appDeps.audit.queries.page({ userId: 'user-test-mode' }, 10, 0);
    assert.deepEqual(
      page.map((row) => row.requestId),
      [requestId],
    );
  });
});
