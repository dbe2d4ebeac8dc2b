/**
 * The Metrics port over prom-client, on a registry of its own (not prom-client's global
 * one), so each composed service, and each test app, counts alone. Node's process metrics
 * (event-loop lag, heap, GC) come along: they answer the first question of a slow service.
 * Projector lag is a gauge read when scraped; a read that fails leaves it empty for that
 * scrape rather than failing the scrape or repeating a stale figure.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { HttpSample, Metrics, ProjectorLag, WorkflowKind, WorkflowOutcome } from '../../ports/metrics.ts';

const PREFIX = 'court_records_';
/** From a cached read (a few ms) to a consolidated analysis waiting on its deadline (minutes). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120, 300];

export class PromMetrics implements Metrics {
  readonly #registry = new Registry();
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #latency: Histogram<'method' | 'route'>;
  readonly #refusals: Counter<'code'>;
  readonly #charges: Counter;
  readonly #creditsCharged: Counter;
  readonly #creditsRefunded: Counter;
  readonly #workflows: Counter<'workflow' | 'outcome'>;
  readonly #lagReaders: (() => Promise<readonly ProjectorLag[]>)[] = [];

  constructor(options: { readonly onLagReadFailure?: (error: unknown) => void } = {}) {
    const registers = [this.#registry];
    // The event-loop delay is sampled every 50 ms, not prom-client's 10: at 10 the sampling timer
    // alone cost an idle process 5 to 6 ms of CPU a second (1 at 50), and 20 samples a second
    // still catch any stall a scrape's percentiles would show.
    collectDefaultMetrics({ register: this.#registry, prefix: PREFIX, eventLoopMonitoringPrecision: 50 });
    this.#requests = new Counter({
      name: `${PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.#latency = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: 'Time to answer an HTTP request, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#refusals = new Counter({
      name: `${PREFIX}refusals_total`,
      help: 'Requests answered with an error code, by code.',
      labelNames: ['code'],
      registers,
    });
    this.#charges = new Counter({ name: `${PREFIX}charges_total`, help: 'Committed credit charges.', registers });
    this.#creditsCharged = new Counter({
      name: `${PREFIX}credits_charged_total`,
      help: 'Credits taken by committed charges (10 credits = Rs 1).',
      registers,
    });
    this.#creditsRefunded = new Counter({
      name: `${PREFIX}credits_refunded_total`,
      help: 'Credits given back by committed reversals of charges.',
      registers,
    });
    this.#workflows = new Counter({
      name: `${PREFIX}workflows_ended_total`,
      help: 'Analysis, consolidated analysis and live-fetch work that ended, by workflow and outcome.',
      labelNames: ['workflow', 'outcome'],
      registers,
    });
    const readers = this.#lagReaders;
    new Gauge({
      name: `${PREFIX}projector_lag_events`,
      help: 'Committed events (case changes, for the index projectors) each projector has not read yet.',
      labelNames: ['projector'],
      registers,
      async collect() {
        this.reset();
        for (const read of readers) {
          try {
            for (const lag of await read()) this.set({ projector: lag.projector }, lag.behind);
          } catch (error) {
            options.onLagReadFailure?.(error);
          }
        }
      },
    });
  }

  httpRequest(sample: HttpSample): void {
    this.#requests.inc({ method: sample.method, route: sample.route, status: String(sample.status) });
    this.#latency.observe({ method: sample.method, route: sample.route }, sample.seconds);
  }

  refused(code: string): void {
    this.#refusals.inc({ code });
  }

  charged(credits: number): void {
    this.#charges.inc();
    this.#creditsCharged.inc(credits);
  }

  refunded(credits: number): void {
    this.#creditsRefunded.inc(credits);
  }

  workflowEnded(kind: WorkflowKind, outcome: WorkflowOutcome): void {
    this.#workflows.inc({ workflow: kind, outcome });
  }

  observeProjectorLag(read: () => Promise<readonly ProjectorLag[]>): void {
    this.#lagReaders.push(read);
  }

  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.#registry.contentType, body: await this.#registry.metrics() };
  }
}
