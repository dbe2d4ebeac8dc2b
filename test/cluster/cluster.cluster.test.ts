/**
 * The service as a cluster, black box: three API processes and one worker apart over
 * shared PostgreSQL, Redis, Meilisearch, an external Temporal server and S3 (moto), with
 * client traffic through a TLS load balancer (HAProxy, round robin, health checks). Faults
 * are real: kill -9 of an API instance mid-traffic, kill -9 of the worker mid-analysis, a
 * rolling SIGTERM restart. Clients behave as the API asks: a connection error, 502 or 503
 * on a GET or on a request with an Idempotency-Key is retried with the same key, as are 409
 * IDEMPOTENCY_IN_PROGRESS and 408 UPSTREAM_TIMEOUT (nothing charged, retry shortly);
 * anything else that is not 2xx is a failure.
 *
 * After each scenario: the ledger equals what the 2xx answers earned at the price table's
 * prices (prices.ts), each Idempotency-Key charged once, one webhook delivery per ended
 * analysis, the same usage and audit totals read from every instance, and the ledger
 * reconciled clean.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { PRICES } from '../../src/domain/credits/prices.ts';
import { eventStoreOf } from '../../src/wiring.ts';
import { ADMIN_TOKEN, API, clusterMissing, startCluster, type Cluster } from '../support/cluster.ts';
import { httpsFetch, startLoadBalancer, type LoadBalancer } from '../support/load-balancer.ts';

type Json = Record<string, unknown>;
const GRANT = 1_000_000;
/** Every retried request must resolve within this (scenario b's bound). */
const RETRY_BOUND_MS = 30_000;

/** One webhook delivery as the receiver saw it. */
interface Delivery {
  readonly id: string;
  readonly type: string;
  readonly runId: string;
}

class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  #server: Server | undefined;
  url = '';

  async listen(): Promise<void> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { runId: string } };
        this.deliveries.push({ id: String(req.headers['webhook-id']), type: event.type, runId: event.data.runId });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${String((this.#server.address() as AddressInfo).port)}/hooks`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Json;
}

/** What the client ended with for one logical request, after its retries. */
interface Outcome {
  readonly kind: 'caseDetail' | 'keywordSearch' | 'analyze' | 'analysisRead';
  readonly key: string | undefined;
  readonly answer: Answer | undefined;
  /** Attempts that ended in a connection error, 502 or 503 (and, keyed, 409 in progress). */
  readonly retries: number;
  readonly ms: number;
}

function retryable(keyed: boolean, method: string, answer: Answer | undefined): boolean {
  if (!keyed && method !== 'GET') return false;
  if (answer === undefined) return true;
  if (answer.status === 502 || answer.status === 503) return true;
  const code = (answer.body as { code?: string }).code;
  // The statement timeout's answer says nothing was charged and to retry shortly (a busy runner meets it).
  if (answer.status === 408 && code === 'UPSTREAM_TIMEOUT') return true;
  return keyed && answer.status === 409 && code === 'IDEMPOTENCY_IN_PROGRESS';
}

describe('the service as a cluster behind a TLS load balancer', { skip: clusterMissing, timeout: 600_000 }, () => {
  let cluster: Cluster;
  let lb: LoadBalancer;
  const receiver = new WebhookReceiver();
  let key: string;
  let userId: string;
  let caseIds: string[] = [];
  let nextCase = 0;
  const outcomes: Outcome[] = [];
  /** Analyses admitted (202): run id per Idempotency-Key. */
  const runs = new Map<string, string>();
  /** What `after` stops, in reverse: what `before` got to start. */
  const stops: (() => Promise<void>)[] = [];
  /** Requests the client could not retry safely, since the scenario began. */
  const failures: string[] = [];
  /** Retryable answers met, by kind (connection error, 502, 503, 408, 409), since the scenario began. */
  const retriedOn = new Map<string, number>();

  /** One attempt through the load balancer, or straight to an instance. An undefined answer is a connection error. */
  async function attempt(via: string | undefined, method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const init = {
      method,
      headers: { 'X-API-Key': key, ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
    try {
      const res = via === undefined ? await httpsFetch(lb, `${API}${path}`, init) : await fetch(`${via}${API}${path}`, init);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Json } satisfies Answer;
    } catch {
      return undefined;
    }
  }

  /** A request as a careful client makes it: retried (same key) while the answer says it may be. */
  async function request(
    kind: Outcome['kind'],
    method: string,
    path: string,
    options: { body?: unknown; key?: string; via?: string } = {},
  ): Promise<Outcome> {
    const started = Date.now();
    const headers: Record<string, string> = options.key ? { 'Idempotency-Key': options.key } : {};
    let retries = 0;
    let answer = await attempt(options.via, method, path, headers, options.body);
    while (retryable(options.key !== undefined, method, answer) && Date.now() - started < RETRY_BOUND_MS) {
      retries += 1;
      const why = answer === undefined ? 'connection' : String(answer.status);
      retriedOn.set(why, (retriedOn.get(why) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      // A retry goes through the load balancer: the instance first asked may be the one that died.
      answer = await attempt(undefined, method, path, headers, options.body);
    }
    const outcome: Outcome = { kind, key: options.key, answer, retries, ms: Date.now() - started };
    outcomes.push(outcome);
    if (answer === undefined || answer.status >= 300)
      failures.push(
        `${method} ${path} ${options.key ?? ''}: ${answer ? `${String(answer.status)} ${JSON.stringify(answer.body)}` : 'no answer'}`,
      );
    return outcome;
  }

  const caseDetail = () => request('caseDetail', 'GET', `/cases/${caseIds[Math.floor(Math.random() * caseIds.length)]!}`);

  /** A keyword search with a key of its own; `twice` sends it to two instances at once, as a client retrying too early. */
  async function keywordSearch(twice = false): Promise<void> {
    const searchKey = `search-${randomUUID()}`;
    const body = { query: ['contract', 'appeal', 'land acquisition', 'tax', 'bail'][Math.floor(Math.random() * 5)] };
    if (!twice) {
      await request('keywordSearch', 'POST', '/search/cases', { body, key: searchKey });
      return;
    }
    const [a, b] = [cluster.instances[0]!, cluster.instances[1]!];
    await Promise.all(
      [a, b].map((instance) =>
        request('keywordSearch', 'POST', '/search/cases', { body, key: searchKey, via: instance.running ? instance.url : undefined }),
      ),
    );
  }

  /** Admits an analysis of a case nobody analysed yet; its run ends later (see `analysesEnded`). */
  async function analyze(): Promise<void> {
    const caseId = caseIds[nextCase++]!;
    const analyzeKey = `analyze-${randomUUID()}`;
    const { answer } = await request('analyze', 'POST', `/cases/${caseId}/analyze`, { body: {}, key: analyzeKey });
    if (answer?.status === 202) runs.set(analyzeKey, (answer.body.data as Json).runId as string);
  }

  /** Polls each admitted run through the load balancer (free while running), then reads the stored analysis once. */
  async function analysesEnded(deadlineMs = 120_000): Promise<Map<string, string>> {
    const ended = new Map<string, string>();
    const deadline = Date.now() + deadlineMs;
    for (const runId of runs.values()) {
      const caseId = /^analysis-(.+)-\d+$/.exec(runId)![1]!;
      for (;;) {
        const res = await attempt(undefined, 'GET', `/cases/${caseId}/analysis`, {});
        const data = res?.status === 200 ? (res.body.data as Json) : undefined;
        const latest = res?.status === 200 ? ((res.body.meta as Json).latestRun as { status: string } | null) : null;
        if (data?.hasAnalysis === true || latest?.status === 'failed') {
          if (data?.hasAnalysis === true) outcomes.push({ kind: 'analysisRead', key: undefined, answer: res, retries: 0, ms: 0 });
          ended.set(runId, data?.hasAnalysis === true ? 'stored' : 'failed');
          break;
        }
        assert.ok(Date.now() < deadline, `analysis ${runId} ended within ${String(deadlineMs / 1000)} s`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    return ended;
  }

  /** `count` requests of mixed kinds, `concurrency` at a time. */
  async function traffic(count: number, concurrency: number): Promise<void> {
    let sent = 0;
    const lane = async () => {
      while (sent < count) {
        sent += 1;
        const pick = sent % 10;
        if (pick < 5) await caseDetail();
        else if (pick < 8) await keywordSearch();
        else if (pick === 8) await keywordSearch(true);
        else await caseDetail();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  }

  async function adminCall(path: string, body: unknown): Promise<Record<string, string>> {
    const res = await fetch(`${cluster.instances[0]!.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `${path}: ${String(res.status)} ${await res.clone().text()}`);
    return ((await res.json()) as { data: Record<string, string> }).data;
  }

  /** What the client's 2xx answers earned at the table's prices: a key counts once, however many answers it got. */
  function earned(): { credits: number; uncertain: number } {
    let credits = 0;
    let uncertain = 0;
    const keys = new Set<string>();
    for (const o of outcomes) {
      const ok = o.answer !== undefined && o.answer.status < 300;
      if (o.kind === 'caseDetail') {
        if (ok) credits += PRICES.caseDetail.credits;
        // A kill between the charge's commit and the answer's last byte: charged, never answered.
        else if (o.answer === undefined || o.answer.status >= 500) uncertain += PRICES.caseDetail.credits;
      }
      if (o.kind === 'analysisRead') {
        if (ok) credits += PRICES.analysisRead.credits;
        else if (o.answer === undefined || o.answer.status >= 500) uncertain += PRICES.analysisRead.credits;
      }
      if (o.kind === 'keywordSearch' && ok && !keys.has(o.key!)) {
        keys.add(o.key!);
        credits += PRICES.keywordSearch.credits;
      }
    }
    return { credits, uncertain };
  }

  interface AuditTotals {
    readonly usageCredits: number;
    readonly auditRequests: number;
    readonly auditCredits: number;
  }
  /** The per-instance totals the last scenario ended on. */
  let lastTotals: AuditTotals[] = [];

  /**
   * Each instance's usage and audit totals, read from it directly, once all agree and say
   * `spent` (the audit trails calls by seconds) or after 30 s.
   */
  async function auditTotals(spent: number): Promise<AuditTotals[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const totals: AuditTotals[] = [];
      for (const instance of cluster.instances) {
        const usage = await attempt(instance.url, 'GET', '/usage', {});
        const audit = await attempt(instance.url, 'GET', `/audit?userId=${userId}&limit=1`, {});
        assert.equal(usage?.status, 200, `instance ${String(instance.index)} /usage`);
        assert.equal(audit?.status, 200, `instance ${String(instance.index)} /audit`);
        const endpoints = (usage.body.data as { endpoints: { credits: number }[] }).endpoints;
        const summary = (audit.body.data as { summary: { totalRequests: number; totalCreditsDeducted: number } }).summary;
        totals.push({
          usageCredits: endpoints.reduce((sum, e) => sum + e.credits, 0),
          auditRequests: summary.totalRequests,
          auditCredits: summary.totalCreditsDeducted,
        });
      }
      // Each replica catches up on its own: settled once all say the same, and that the ledger's `spent`.
      const settled =
        totals.every((t) => t.auditCredits === spent && t.usageCredits === spent) &&
        new Set(totals.map((t) => JSON.stringify(t))).size === 1;
      if (settled || Date.now() > deadline) return totals;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  interface Books {
    readonly spent: number;
    readonly reserved: number;
    readonly searchCharges: number;
    /** The request each kept search charge was made for. */
    readonly searchChargeRefs: Set<string>;
    readonly analysisCharges: { runId: string; amount: number; reversed: boolean }[];
  }

  async function books(): Promise<Books> {
    const db = cluster.database.db;
    const balance = await db
      .selectFrom('creditCharges')
      .select((eb) => eb.fn.sum<string | null>('amount').as('spent'))
      .where('accountId', '=', userId)
      .where('reversed', '=', false)
      .executeTakeFirstOrThrow();
    const charges = await db.selectFrom('creditCharges').selectAll().where('accountId', '=', userId).execute();
    const usage = await attempt(undefined, 'GET', '/usage', {});
    assert.equal(usage?.status, 200);
    const data = usage.body.data as { balance: number; reserved: number };
    assert.equal(GRANT - data.balance, Number(balance.spent ?? 0), 'the balance is the grant less the charges kept');
    return {
      spent: GRANT - data.balance,
      reserved: data.reserved,
      searchCharges: charges.filter((c) => !c.reversed && c.amount === PRICES.keywordSearch.credits).length,
      searchChargeRefs: new Set(charges.filter((c) => !c.reversed && c.amount === PRICES.keywordSearch.credits).map((c) => c.requestRef)),
      analysisCharges: charges
        .filter((c) => c.amount === PRICES.analyze.credits)
        .map((c) => ({ runId: c.chargeId, amount: c.amount, reversed: c.reversed })),
    };
  }

  /** The invariants every scenario ends on; returns the figures for the report. */
  async function invariants(scenario: string): Promise<Json> {
    const ended = await analysesEnded();
    const stored = [...ended.values()].filter((s) => s === 'stored').length;
    const b = await books();
    const { credits, uncertain } = earned();
    const expected = credits + stored * PRICES.analyze.credits;
    const searchKeys = new Set(outcomes.filter((o) => o.kind === 'keywordSearch' && o.answer && o.answer.status < 300).map((o) => o.key));
    // Keys answered 2xx whose answers name no charged request: what each of their answers said.
    const uncharged = [...searchKeys].flatMap((k) => {
      const answers = outcomes.filter((o) => o.key === k && o.answer).map((o) => o.answer!);
      if (answers.some((a) => b.searchChargeRefs.has(a.headers.get('x-request-id') ?? ''))) return [];
      return [
        {
          key: k,
          answers: answers.map((a) => ({
            status: a.status,
            replayed: a.headers.get('idempotency-replayed'),
            charged: a.headers.get('x-credits-charged'),
            requestId: a.headers.get('x-request-id'),
          })),
        },
      ];
    });
    // Every ended run is announced: wait for the stragglers before counting.
    const deadline = Date.now() + 60_000;
    const announced = () => new Set(receiver.deliveries.map((d) => d.runId));
    while ([...ended.keys()].some((runId) => !announced().has(runId)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 250));
    // A read without an Idempotency-Key whose instance was killed between its charge's commit and its audit
    // row's (the answer leaves after the row commits, so it was never answered) keeps a charge with no row
    // (docs/scaling.md, "What the cluster tier showed"). Reconcile names exactly those; every other charge,
    // keyed ones included, is audited.
    const report = await reconcileLedger(
      {
        db: cluster.database.db,
        events: eventStoreOf(cluster.database.db),
        analytics: null,
        analyticsUnavailable: 'read per instance above',
      },
      {},
    );
    const withoutAudit = report.differences.filter((d) => d.kind === 'charge-without-audit');
    const unaudited = withoutAudit.reduce((n, d) => n + d.charged, 0);
    const perInstance = await auditTotals(b.spent - unaudited);
    lastTotals = perInstance;
    const retried = outcomes.filter((o) => o.retries > 0);
    const figures = {
      scenario,
      requests: outcomes.length,
      retried: retried.length,
      retriedOn: Object.fromEntries(retriedOn),
      slowestRetryMs: Math.max(0, ...retried.map((o) => o.ms)),
      unretriable: failures.length,
      ledgerSpent: b.spent,
      answersEarned: expected,
      unansweredReads: uncertain,
      searchKeys: searchKeys.size,
      searchCharges: b.searchCharges,
      uncharged,
      unansweredReadsCharged: withoutAudit.length,
      analysisCharges: b.analysisCharges.length,
      analyses: ended.size,
      stored,
      deliveries: receiver.deliveries.length,
      perInstance,
    };
    // Printed before the checks, so a failing run still reports what it saw.
    process.stdout.write(`# ${JSON.stringify(figures)}\n`);

    assert.deepEqual(failures, [], `${scenario}: requests the client could not retry safely`);
    for (const o of retried) assert.ok(o.ms <= RETRY_BOUND_MS + 5_000, `${scenario}: a retried request resolved in ${String(o.ms)} ms`);
    assert.equal(b.searchCharges, searchKeys.size, `${scenario}: one search charge per Idempotency-Key`);
    for (const [runId, status] of ended) {
      const own = b.analysisCharges.filter((c) => c.runId === runId);
      assert.equal(own.length, 1, `${scenario}: ${runId} charged once`);
      assert.equal(
        own[0]!.reversed,
        status !== 'stored',
        `${scenario}: ${runId} ${status}, its charge ${own[0]!.reversed ? 'reversed' : 'kept'}`,
      );
    }
    assert.equal(b.analysisCharges.length, ended.size, `${scenario}: no analysis charged that the client was not answered for`);
    assert.ok(
      b.spent >= expected && b.spent <= expected + uncertain,
      `${scenario}: ledger ${String(b.spent)} against the answers' ${String(expected)} (+ up to ${String(uncertain)} unanswered reads)`,
    );
    assert.equal(b.reserved, 0, `${scenario}: no hold left open`);
    // None lost, none doubled.
    for (const [runId, status] of ended) {
      const own = receiver.deliveries.filter((d) => d.runId === runId);
      assert.deepEqual(
        own.map((d) => d.type),
        [`analysis.${status}`],
        `${scenario}: ${runId} announced once`,
      );
    }
    // Every charged call is in the audit once (but for the unanswered reads above), and every instance's usage and audit say so.
    for (const [i, totals] of perInstance.entries())
      assert.deepEqual(
        [totals.usageCredits, totals.auditCredits],
        [b.spent - unaudited, b.spent - unaudited],
        `${scenario}: instance ${String(i)}'s usage and audit credits against the ledger's ${String(b.spent)}: ${JSON.stringify(perInstance)}`,
      );
    assert.deepEqual(
      report.differences.filter((d) => d.kind !== 'charge-without-audit'),
      [],
      `${scenario}: finance reconcile`,
    );
    for (const d of withoutAudit)
      assert.ok(
        new Set<number>([PRICES.caseDetail.credits, PRICES.analysisRead.credits]).has(d.charged),
        `${scenario}: only an unanswered read may lack its audit row: ${JSON.stringify(d)}`,
      );
    assert.ok(
      unaudited <= uncertain,
      `${scenario}: ${String(unaudited)} credits unaudited, more than the ${String(uncertain)} of unanswered reads`,
    );
    return figures;
  }

  before(async () => {
    await receiver.listen();
    stops.push(() => receiver.close());
    cluster = await startCluster({
      instances: 3,
      env: { WEBHOOK_DISPATCH_INTERVAL_MS: '200', WEBHOOK_RETRY_INITIAL_MS: '200', SHUTDOWN_DRAIN_SECONDS: '5' },
    });
    stops.push(() => cluster.stop());
    lb = await startLoadBalancer({ backends: cluster.instances.map((i) => ({ host: '127.0.0.1', port: i.port })) });
    stops.push(() => lb.stop());
    await lb.waitUntilAllUp(30_000);
    const password = 'cluster-password-0123';
    const email = 'cluster@lawfirm.example';
    const user = await adminCall('/admin/users', {
      email,
      name: 'Cluster',
      tier: 'enterprise',
      password,
      limitOverrides: { requestsPerMinute: 100_000, concurrentAnalyses: 100 },
    });
    userId = user.userId!;
    key = (await adminCall(`/admin/users/${userId}/keys`, { name: 'cluster' })).fullKey!;
    await adminCall(`/admin/users/${userId}/credits`, { amount: GRANT, source: 'grant' });
    const login = await fetch(`${cluster.instances[0]!.url}/api/settings/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    assert.equal(login.status, 200, await login.clone().text());
    const csrf = ((await login.json()) as { data: { csrfToken: string } }).data.csrfToken;
    const cookie = /^session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    const hook = await fetch(`${cluster.instances[0]!.url}/api/settings/webhooks`, {
      method: 'POST',
      headers: { Cookie: `session=${cookie ?? ''}`, 'X-CSRF-Token': csrf, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['analysis.stored', 'analysis.failed'] }),
    });
    assert.equal(hook.status, 201, await hook.clone().text());
    caseIds = (
      await cluster.database.db.selectFrom('cases').select('caseId').where('text', 'is not', null).orderBy('caseId').limit(40).execute()
    ).map((r) => r.caseId);
    assert.ok(caseIds.length >= 20);
  });

  beforeEach(() => {
    failures.length = 0;
    retriedOn.clear();
  });

  after(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('a) steady traffic through the load balancer: reads, searches (some keys at two instances at once), analyses and their webhooks', async () => {
    await Promise.all([traffic(120, 4), analyze(), analyze(), analyze()]);
    await invariants('steady');
  });

  it('b) kill -9 of an API instance mid-traffic: every retried request resolves within 30 s, replayed or run again', async () => {
    const load = Promise.all([traffic(160, 6), analyze(), analyze()]);
    await new Promise((r) => setTimeout(r, 1_500));
    // Keyed searches sent to the doomed instance itself, so the kill lands while it holds their keys in flight.
    const victim = cluster.instances[2]!.url;
    const inFlight = Array.from({ length: 6 }, () =>
      request('keywordSearch', 'POST', '/search/cases', { body: { query: 'appeal' }, key: `search-${randomUUID()}`, via: victim }),
    );
    await new Promise((r) => setTimeout(r, 40));
    await cluster.kill(2);
    await Promise.all(inFlight);
    try {
      await load;
      assert.ok(
        outcomes.some((o) => o.retries > 0),
        'the kill met requests in flight',
      );
    } finally {
      await cluster.start(2);
      await lb.waitUntilAllUp(30_000);
    }
    await invariants('instance killed');
  });

  it('c) kill -9 of the worker mid-analysis, then a new worker: each analysis completes, charged once, announced once', async () => {
    await Promise.all([analyze(), analyze(), analyze(), analyze()]);
    await new Promise((r) => setTimeout(r, 1_000));
    await cluster.killWorker();
    await traffic(20, 2);
    await cluster.startWorker();
    const ended = await analysesEnded(180_000);
    assert.ok(
      [...ended.values()].every((s) => s === 'stored'),
      JSON.stringify([...ended]),
    );
    await invariants('worker killed');
  });

  it('d) rolling restart under load: SIGTERM each instance in turn and start it again; no failure a client could not retry', async () => {
    const state = { rolling: true };
    const load = (async () => {
      while (state.rolling) await traffic(20, 3);
    })();
    try {
      for (let i = 0; i < cluster.instances.length; i += 1) {
        await cluster.terminate(i);
        await cluster.start(i);
        // Back in the rotation before the next one leaves it.
        await lb.waitUntilAllUp(30_000);
      }
    } finally {
      state.rolling = false;
      await load;
    }
    await analyze();
    await invariants('rolling restart');
  });

  // No ClickHouse server runs here: each instance's embedded one is a replica that every audit event reaches.
  it('every instance answers the same usage and audit totals', () => {
    assert.ok(lastTotals.length > 1);
    assert.equal(new Set(lastTotals.map((t) => JSON.stringify(t))).size, 1, JSON.stringify(lastTotals));
  });
});
