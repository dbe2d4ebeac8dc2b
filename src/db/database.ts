/**
 * The typed view of the Postgres schema for Kysely, derived from the drizzle tables so
 * the schema is written once. Kysely runs with CamelCasePlugin, so the camelCase names
 * here map onto the snake_case columns drizzle-kit writes. Repositories take `Db` or `Trx`.
 */
import type { Generated, Kysely, Transaction } from 'kysely';
import type { InferSelectModel } from 'drizzle-orm';
import type * as schema from './schema/index.ts';

type WithDefaults<T, K extends keyof T> = Omit<T, K> & { [P in K]: Generated<T[P]> };

export interface Database {
  streams: InferSelectModel<typeof schema.streams>;
  events: WithDefaults<InferSelectModel<typeof schema.events>, 'globalPosition' | 'transactionId'>;
  projectorCheckpoints: InferSelectModel<typeof schema.projectorCheckpoints>;
  cases: WithDefaults<InferSelectModel<typeof schema.cases>, 'restricted' | 'changeXid' | 'changeSeq'>;
  ingestRejections: InferSelectModel<typeof schema.ingestRejections>;
  organizations: InferSelectModel<typeof schema.organizations>;
  users: InferSelectModel<typeof schema.users>;
  apiKeys: InferSelectModel<typeof schema.apiKeys>;
  dashboardSessions: InferSelectModel<typeof schema.dashboardSessions>;
  subjectKeys: InferSelectModel<typeof schema.subjectKeys>;
  creditBalances: InferSelectModel<typeof schema.creditBalances>;
  creditReservations: InferSelectModel<typeof schema.creditReservations>;
  creditCharges: InferSelectModel<typeof schema.creditCharges>;
  creditLots: InferSelectModel<typeof schema.creditLots>;
  creditPaymentReferences: InferSelectModel<typeof schema.creditPaymentReferences>;
  searchDocuments: InferSelectModel<typeof schema.searchDocuments>;
  caseChunks: InferSelectModel<typeof schema.caseChunks>;
  analysisRuns: WithDefaults<InferSelectModel<typeof schema.analysisRuns>, 'remoteFetched' | 'workflowStarted' | 'remoteFetchPlanned'>;
  caseAnalyses: InferSelectModel<typeof schema.caseAnalyses>;
  consolidatedAnalyses: InferSelectModel<typeof schema.consolidatedAnalyses>;
  timelineRequests: WithDefaults<InferSelectModel<typeof schema.timelineRequests>, 'liveFetched' | 'workflowStarted'>;
  webhookEndpoints: WithDefaults<InferSelectModel<typeof schema.webhookEndpoints>, 'mode' | 'consecutiveFailures'>;
  webhookDeliveries: WithDefaults<InferSelectModel<typeof schema.webhookDeliveries>, 'workflowStarted' | 'attempts'>;
  accountEvents: WithDefaults<InferSelectModel<typeof schema.accountEvents>, 'seq'>;
}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
