/**
 * Analysis on the running service (PGlite, a real Temporal dev server, the in-process
 * worker with the local extractive analyser, over a real socket): admission latency
 * (POST /cases/:id/analyze → 202), workflow start to stored analysis per run, and the
 * throughput of N concurrent analyses on this machine. The corpus is the 100 IN-Abs
 * judgments with full text; forced re-runs repeat them when more runs are asked for.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import { scInAbsSource } from '../src/corpus/sources/sc-inabs.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite } from '../src/db/open.ts';
import { enterpriseUser } from '../test/support/access-fixture.ts';
import { BASE, buildTestApp } from '../test/support/app.ts';
import { corpusDir } from '../test/support/corpus.ts';
import { startLocalWorkers, startTestTemporal, temporalCli } from '../test/support/temporal.ts';
import { median } from './stats.ts';

export interface AnalysisFigures {
  readonly runs: number;
  readonly admissionP50Ms: number;
  readonly admissionP99Ms: number;
  /** Admissions while 16 clients admit and the worker runs on the same embedded database. */
  readonly loadedAdmissionP50Ms: number;
  readonly loadedAdmissionP99Ms: number;
  /** From the 202 to the stored analysis, one run at a time (workflow start to completion). */
  readonly runP50Ms: number;
  readonly runP99Ms: number;
  readonly throughputPerSecond: number;
  readonly failures: number;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Null when no Temporal CLI is installed. */
export async function analysisBench(sequential = 20, concurrent = 100, concurrency = 16): Promise<AnalysisFigures | null> {
  if (!temporalCli()) return null;
  const database = await openPglite(undefined);
  await migrate(database.db);
  const temporal = await startTestTemporal({ activityTimeoutSeconds: 60 });
  const t = buildTestApp({ db: database.db, workflows: temporal.workflows });
  const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
  try {
    const user = await t.application.accounts.registerUser(
      enterpriseUser('bench@analysis.example', {
        organizationId: null,
        limitOverrides: { concurrentAnalyses: concurrent, requestsPerMinute: 100_000 },
      }),
      { kind: 'operator' },
    );
    if (!user.ok) throw new Error(user.error.tag);
    const key = await t.application.accounts.createKey(user.value.userId, 'bench', { kind: 'operator' });
    if (!key.ok) throw new Error(key.error.tag);
    await t.application.credits.grantToUser(user.value.userId, { amount: 1_000_000, source: 'grant' });
    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date(), sources: [scInAbsSource] });
    await startLocalWorkers(temporal, t, { maxConcurrentActivities: 2 });
    const caseIds = (await database.db.selectFrom('cases').select('caseId').where('text', 'is not', null).orderBy('caseId').execute()).map(
      (r) => r.caseId,
    );
    const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}${BASE}`;
    let failures = 0;
    let n = 0;
    const admit = async (): Promise<{ runId: string; ms: number } | null> => {
      const caseId = caseIds[n++ % caseIds.length]!;
      const t0 = performance.now();
      const res = await fetch(`${url}/cases/${caseId}/analyze`, {
        method: 'POST',
        headers: { 'X-API-Key': key.value.fullKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ force: true }),
      });
      const body = (await res.json()) as { data?: { runId?: string } };
      const ms = performance.now() - t0;
      if (res.status !== 202 || !body.data?.runId) {
        failures += 1;
        return null;
      }
      return { runId: body.data.runId, ms };
    };
    const ended = async (runId: string): Promise<void> => {
      for (;;) {
        const run = await t.analysis.runs.run(runId);
        if (run && run.status !== 'running') {
          if (run.status !== 'stored') failures += 1;
          return;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    };

    // One at a time: what a caller waits for, without queueing behind other runs.
    const admissions: number[] = [];
    const completions: number[] = [];
    for (let i = 0; i < sequential; i += 1) {
      const t0 = performance.now();
      const admitted = await admit();
      if (!admitted) continue;
      admissions.push(admitted.ms);
      await ended(admitted.runId);
      completions.push(performance.now() - t0 - admitted.ms);
    }

    // Many at once: how many analyses per second the worker finishes on this machine.
    const started = performance.now();
    const admittedRuns: string[] = [];
    const loadedAdmissions: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < concurrent) {
          next += 1;
          const admitted = await admit();
          if (admitted) {
            loadedAdmissions.push(admitted.ms);
            admittedRuns.push(admitted.runId);
          }
        }
      }),
    );
    for (const runId of admittedRuns) await ended(runId);
    const elapsed = (performance.now() - started) / 1000;
    return {
      runs: sequential + concurrent,
      admissionP50Ms: median(admissions),
      admissionP99Ms: percentile(admissions, 99),
      loadedAdmissionP50Ms: median(loadedAdmissions),
      loadedAdmissionP99Ms: percentile(loadedAdmissions, 99),
      runP50Ms: median(completions),
      runP99Ms: percentile(completions, 99),
      throughputPerSecond: admittedRuns.length / elapsed,
      failures,
    };
  } finally {
    server.close();
    await temporal.close();
    await database.close();
  }
}
