/**
 * What an operator sees of workflows, against the real Temporal dev server: an analysis
 * and a consolidated analysis started through the API are listed by the visibility query
 * `CourtRecordsAccountId="<account>"` (and not under another account), their ends are
 * counted by workflow and outcome, and their activities log through our pino logger
 * (the SDK's Runtime logger) with the id of the request that admitted them. A cluster
 * namespace without the attribute gets it registered at start, once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import proto from '@temporalio/proto';
import pino from 'pino';
import { installRuntimeLogger } from '../../src/adapters/temporal/runtime-logger.ts';
import { ACCOUNT_ID, registerSearchAttributes } from '../../src/adapters/temporal/search-attributes.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { openPglite, type OpenedDatabase } from '../../src/db/open.ts';
import { migrate } from '../../src/db/migrate.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { keyedUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { sampleValue } from '../support/prometheus-text.ts';
import {
  NO_TEMPORAL_CLI,
  startLocalWorkers,
  startTestTemporal,
  temporalCli,
  type TestTemporal,
  runEnded as waitForRunEnd,
} from '../support/temporal.ts';

type Json = Record<string, unknown>;

// First in this process, before any connection: the Runtime, and so the SDK's logger, is fixed once.
const logs: Json[] = [];
installRuntimeLogger(pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Json) }));

describe('workflow observability', { skip: temporalCli() ? false : NO_TEMPORAL_CLI, timeout: 300_000 }, () => {
  let database: OpenedDatabase;
  let temporal: TestTemporal;
  let t: TestApp;

  /** The workflow ids the engine lists for a visibility query, once it lists `expected` many (visibility trails a little). */
  async function listed(query: string, expected: number): Promise<string[]> {
    let ids: string[] = [];
    for (let i = 0; i < 50; i += 1) {
      ids = [];
      for await (const workflow of temporal.runtime.client.workflow.list({ query })) ids.push(workflow.workflowId);
      if (ids.length >= expected) return ids.sort();
      await new Promise((r) => setTimeout(r, 200));
    }
    return ids.sort();
  }

  const runEnded = (runId: string) => waitForRunEnd(t.analysis.runs, runId);

  before(async () => {
    database = await openPglite(undefined);
    await migrate(database.db);
    temporal = await startTestTemporal({ activityTimeoutSeconds: 20 });
    t = buildTestApp({ db: database.db, clock: systemClock, workflows: temporal.workflows });
    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date(), sources: [scInAbsSource] });
    await startLocalWorkers(temporal, t);
  });
  after(async () => {
    await temporal.close();
    await database.close();
  });

  it('lists an account’s analyses under CourtRecordsAccountId, counts their ends and logs their activities with the request id', async () => {
    const caller = await keyedUser(t.application.accounts, 'observed');
    const other = await keyedUser(t.application.accounts, 'unobserved');
    await t.application.credits.grant(caller.userId, { amount: 1_000, source: 'grant' });
    const ended = (text: string, workflow: string) =>
      sampleValue(text, 'court_records_workflows_ended_total', { workflow, outcome: 'completed' });
    const before = (await t.metrics.scrape()).body;

    const post = (path: string) =>
      t.app.request(`${BASE}${path}`, {
        method: 'POST',
        headers: { 'X-API-Key': caller.key, 'Content-Type': 'application/json' },
        body: '{}',
      });
    const single = await post('/cases/sc-inabs-5861/analyze');
    assert.equal(single.status, 202, await single.clone().text());
    const runId = String(((await single.json()) as { data: Json }).data.runId);
    const requestId = single.headers.get('x-request-id');
    assert.ok(requestId);
    assert.equal(await runEnded(runId), 'stored');
    const consolidated = await post('/cases/sc-inabs-652/analyze-consolidated');
    assert.equal(consolidated.status, 200, await consolidated.clone().text());

    const mine = await listed(`${ACCOUNT_ID.name}="${caller.userId}"`, 2);
    assert.equal(mine.length, 2, JSON.stringify(mine));
    assert.equal(mine.filter((id) => id === runId).length, 1);
    assert.equal(mine.filter((id) => id.startsWith('consolidated-')).length, 1);
    assert.deepEqual(await listed(`${ACCOUNT_ID.name}="${other.userId}"`, 0), []);
    const description = await temporal.runtime.client.workflow.getHandle(runId).describe();
    assert.equal(description.typedSearchAttributes.get(ACCOUNT_ID), caller.userId);

    const after = (await t.metrics.scrape()).body;
    assert.equal(ended(after, 'analysis') - ended(before, 'analysis'), 1);
    assert.equal(ended(after, 'consolidated') - ended(before, 'consolidated'), 1);

    // The activity logs after its store commits, so the run can read as stored a moment before the line is written.
    let stored: Json | undefined;
    for (let i = 0; i < 50 && stored === undefined; i += 1) {
      stored = logs.find((line) => line.msg === 'analysis stored' && line.runId === runId);
      if (stored === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(stored, 'no activity log line of the run');
    assert.equal(stored.requestId, requestId);
    assert.equal(stored.workflowId, runId, 'the SDK’s activity metadata came through');
    assert.equal(stored.component, 'temporal');
  });

  it('registers the attribute in a namespace that lacks it, and leaves one that has it alone', async () => {
    const { client } = temporal.runtime;
    const namespace = `observability-${Date.now().toString(36)}`;
    await client.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: proto.google.protobuf.Duration.fromObject({ seconds: 86_400 }),
    });
    const registered = async () => (await client.connection.operatorService.listSearchAttributes({ namespace })).customAttributes;
    assert.equal(ACCOUNT_ID.name in (await registered()), false);
    assert.equal(await registerSearchAttributes(client, namespace), 'created');
    assert.equal(ACCOUNT_ID.name in (await registered()), true);
    assert.equal(await registerSearchAttributes(client, namespace), 'present');
    assert.equal(await registerSearchAttributes(client, 'default'), 'present', 'the dev server registers it from its flags');
  });
});
