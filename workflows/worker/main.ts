/**
 * The standalone worker entry point (`npm run worker`): runs the analysis workflows and
 * activities apart from the API, against the same PostgreSQL (DATABASE_URL; PGlite lives
 * inside one process, so a separate worker needs a real database), the same document
 * storage and the same Temporal cluster (TEMPORAL_ADDRESS, else the dev server an API
 * process on this machine started). SIGINT/SIGTERM drain the worker and exit.
 */
import { join } from 'node:path';
import pino from 'pino';
import { loadOrCreateSecret } from '../../src/adapters/crypto/local-secret.ts';
import { CaseReader } from '../../src/application/cases/case-reader.ts';
import { AnalysisRuns } from '../../src/application/analysis/analysis-runs.ts';
import { StoredRecords } from '../../src/application/timeline/stored-records.ts';
import { TimelineJobs } from '../../src/application/timeline/timeline-jobs.ts';
import { CreditsService } from '../../src/application/credits/credits-service.ts';
import { openDocumentStorage } from '../../src/adapters/storage/open-document-storage.ts';
import { openWorkflowRuntime, payloadCodecOf, remoteFetchAllowlist, workerTemporalAddress } from '../../src/compose-workflows.ts';
import { loadConfig, publicBaseUrl } from '../../src/config.ts';
import { openDatabase } from '../../src/db/open.ts';
import { randomIds, systemClock } from '../../src/ports/clock.ts';
import { eventStoreOf, liveFetchHoldMs, webhookDeliveriesOf } from '../../src/wiring.ts';

const config = loadConfig(process.env);
const logger = pino({ level: config.LOG_LEVEL, base: { service: 'court-records-worker' } });
if (!config.DATABASE_URL) {
  logger.fatal('DATABASE_URL is required: a worker apart from the API needs a database both processes can reach');
  process.exit(2);
}
const database = await openDatabase(config);
const store = eventStoreOf(database.db);
const credits = new CreditsService({ db: database.db, store, clock: systemClock, ids: randomIds });
const runs = new AnalysisRuns({ db: database.db, store, credits, clock: systemClock });
const baseUrl = publicBaseUrl(config);
const documents = openDocumentStorage({ ...config, PUBLIC_BASE_URL: baseUrl }, systemClock);
const runtime = await openWorkflowRuntime(
  { ...config, TEMPORAL_ADDRESS: workerTemporalAddress(config) },
  {
    logger,
    codec: await payloadCodecOf(config),
    codecEndpoint: new URL('/ops/temporal-codec', baseUrl).toString(),
    runWorker: true,
    activities: () => ({
      runs,
      cases: new CaseReader(database.db),
      documents: documents.storage,
      allowlist: remoteFetchAllowlist(config, baseUrl),
      timeline: {
        jobs: new TimelineJobs({
          db: database.db,
          store,
          credits,
          clock: systemClock,
          ids: randomIds,
          holdForMs: liveFetchHoldMs({
            startBoundMs: config.WORKFLOW_START_BOUND_SECONDS * 1000,
            maxRunMs: config.WORKFLOW_RUN_MAX_SECONDS * 1000,
          }),
        }),
        records: new StoredRecords(database.db),
        clock: systemClock,
      },
      // Only the attempts run here; the API process projects and dispatches deliveries.
      webhooks: webhookDeliveriesOf({
        db: database.db,
        clock: systemClock,
        keyHashSecret: config.KEY_HASH_SECRET ?? loadOrCreateSecret(join(config.DATA_DIR, 'secrets', 'key-hash-secret')),
        // Never on by default here: this worker runs beside a deployment's database.
        allowInsecureUrls: config.WEBHOOK_ALLOW_INSECURE_URLS ?? false,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: config.WEBHOOK_MAX_RESPONSE_BYTES,
        userAgent: `court-records-webhooks/${config.APP_VERSION}`,
      }),
    }),
  },
);
if (!runtime.workflows.available) {
  await database.close();
  process.exit(1);
}
runtime.startWorker();

async function stop(signal: string): Promise<void> {
  logger.info({ signal }, 'worker draining');
  await runtime.close();
  documents.close();
  await database.close();
  process.exit(0);
}
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
