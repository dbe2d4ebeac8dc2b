/**
 * What the graph takes from the configuration on the live service and test mode chooses
 * otherwise, in one place, so that buildGraph (graph.ts) reads an adapter or a setting and
 * never asks which mode it is in. The live choices come from the configuration here; test
 * mode's from its adapter opener (test-mode-adapters.ts). Where the workflows run (queues,
 * ids, the analyser and court portal of the workers) travels with the workflow runtime.
 */
import { openAdjudicator } from '../adapters/llm/open-adjudicator.ts';
import type { OutboxSource } from '../application/webhooks/webhook-outbox.ts';
import { remoteFetchAllowlist } from '../compose-workflows.ts';
import { publicBaseUrl, type Config } from '../config.ts';
import type { MatchAdjudicator } from '../ports/match-adjudicator.ts';
import { AUDIT_TABLES } from '../projections/audit-to-clickhouse.ts';

export type AuditTable = (typeof AUDIT_TABLES)[keyof typeof AUDIT_TABLES];

export interface ModeChoices {
  /** Reads the context of a litigation check's possible matches. */
  readonly adjudicator: MatchAdjudicator;
  /** The hosts an analysis may fetch a remote document from; empty: none. */
  readonly remoteFetchAllowlist: readonly string[];
  /** Whether a live fetch (refresh: true) has a court portal to go to; without one it is refused before it starts. */
  readonly livePortal: boolean;
  /** The analytics table the audit projector writes and /audit and /usage read. */
  readonly auditTable: AuditTable;
  /** Whose facts the webhook outbox follows, and where it writes their deliveries. */
  readonly webhookOutbox: OutboxSource;
  /** Whether the warm-up ingests CORPUS_DIR on a first start. */
  readonly autoIngest: boolean;
}

export function liveChoices(config: Config): ModeChoices {
  return {
    adjudicator: openAdjudicator(config),
    remoteFetchAllowlist: remoteFetchAllowlist(config, publicBaseUrl(config)),
    livePortal: config.COURT_PORTAL_URL !== undefined,
    auditTable: AUDIT_TABLES.live,
    webhookOutbox: { mode: 'live' },
    autoIngest: config.AUTO_INGEST,
  };
}
