/**
 * The environment, parsed once with zod. Anything wrong fails fast at start with one
 * message naming every bad variable. Unset service URLs select the embedded defaults.
 *
 * A variable set to the empty string (or blanks) counts as unset, as `FOO=` does in a
 * shell or an env file: a compose file passing `${LLM_MODEL:-}` through means "not
 * configured", never "configured as nothing". Each secret may instead be read from a file
 * named by `<NAME>_FILE` (Docker and Kubernetes secrets), as the official Postgres image
 * reads POSTGRES_PASSWORD_FILE; setting both is refused.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { parseCodecKeyring } from './adapters/temporal/payload-codec.ts';
import { TIERS } from './domain/access/tiers.ts';
import { isLoopbackHost } from './domain/network/address-class.ts';

const optionalUrl = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .pipe(z.url().optional());

const csv = z
  .string()
  .optional()
  .transform((v) =>
    v
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
  );

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: optionalUrl,
  REDIS_URL: optionalUrl,
  /**
   * The first part of every Redis key (`<prefix>:` live, `<prefix>-test:` test mode): deployments
   * sharing one Redis (staging beside production) then never share a rate limit or a key count.
   */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .default('court-records'),
  CLICKHOUSE_URL: optionalUrl,
  /** Where the embedded ClickHouse (no CLICKHOUSE_URL) keeps its data. Default: DATA_DIR. One process per folder. */
  ANALYTICS_DATA_DIR: z.string().optional(),
  /**
   * API processes sharing PORT (node:cluster): a number, or `auto` for one per core. More
   * than one needs DATABASE_URL and TEMPORAL_ADDRESS (see src/composition/api-processes.ts).
   */
  API_PROCESSES: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(256)]).default(1),
  MEILI_URL: optionalUrl,
  MEILI_API_KEY: z.string().optional(),
  /** The Meilisearch index uid: several deployments (staging, production) may share one server. */
  MEILI_INDEX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default('cases'),
  TEMPORAL_ADDRESS: z.string().optional(),
  ADMIN_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v ? v : undefined))
    .pipe(z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional()),
  // Unset: GET /ops/metrics answers loopback callers only (see routes/ops/get-metrics.ts).
  METRICS_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v ? v : undefined))
    .pipe(z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional()),
  /** Where a worker apart (npm run worker) serves GET /ops/metrics, on HOST; unset: it serves nothing. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  CORPUS_DIR: z.string().optional(),
  AUTO_INGEST: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Test keys (the second API_KEY_PREFIXES prefix) answered by test mode; false refuses them as invalid keys. */
  TEST_MODE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * Test mode's own database when DATABASE_URL is set. Unset: a database named after the live
   * one with `_test_mode` appended, on the same server, created on first start if missing.
   */
  TEST_MODE_DATABASE_URL: optionalUrl,
  API_BASE_PATH: z
    .string()
    .regex(/^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/, 'API_BASE_PATH must start with / and not end with /')
    .default('/api/v1/prod'),
  CORS_ORIGINS: csv,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  APP_VERSION: z.string().default('0.1.0'),
  GIT_COMMIT: z.string().default('unknown'),
  PUBLIC_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
  /** Failed API key attempts (unknown key, bad checksum) per client address per minute; then new keys get 429. */
  FAILED_KEY_ATTEMPTS_PER_MINUTE: z.coerce.number().int().positive().default(20),
  /** Wrong admin tokens per client address per minute (admin API, ops codec); then every token gets 429. */
  FAILED_ADMIN_TOKEN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().positive().default(5),
  /** Password hashes a login may run at once: each holds a libuv pool thread (4 by default) for 0.1-0.2 s. */
  LOGIN_HASH_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /** Logins that may wait for a hash slot; past them a login answers 503 LOGIN_BUSY with Retry-After. */
  LOGIN_HASH_QUEUE: z.coerce.number().int().min(0).default(8),
  API_KEY_PREFIXES: z
    .string()
    .default('crk_live,crk_test')
    .transform((v) => v.split(',').map((s) => s.trim()))
    .pipe(
      z.tuple([z.string().regex(/^[A-Za-z0-9_]{2,16}$/), z.string().regex(/^[A-Za-z0-9_]{2,16}$/)], {
        error: 'API_KEY_PREFIXES must be two prefixes',
      }),
    ),
  KEY_HASH_SECRET: z.string().min(32, 'KEY_HASH_SECRET must be at least 32 characters').optional(),
  API_PLANS: z
    .string()
    .default('enterprise')
    .transform((v) => v.split(',').map((s) => s.trim()))
    .pipe(z.array(z.enum(TIERS)).min(1)),
  TRUSTED_PROXIES: csv,
  KEY_CACHE_POLL_MS: z.coerce.number().int().min(20).max(1000).default(200),
  /** Absolute URL of the API root as clients reach it; local document links point here. Default: http://HOST:PORT + API_BASE_PATH. */
  PUBLIC_BASE_URL: optionalUrl,
  DOCUMENT_URL_SECRET: z.string().min(32, 'DOCUMENT_URL_SECRET must be at least 32 characters').optional(),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().optional(),
  S3_ENDPOINT: optionalUrl,
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** OpenAI-compatible embeddings service; unset = the local Universal Sentence Encoder lite (no network). */
  EMBEDDINGS_URL: optionalUrl,
  EMBEDDINGS_MODEL: z.string().trim().min(1).optional(),
  EMBEDDINGS_API_KEY: z.string().optional(),
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(1).max(2000).optional(),
  /** Temporal namespace and the dev server the embedded default starts (TEMPORAL_ADDRESS unset). */
  TEMPORAL_NAMESPACE: z.string().trim().min(1).default('default'),
  TEMPORAL_CLI_PATH: z.string().optional(),
  TEMPORAL_DEV_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  /** Run the analysis worker inside the API process (the embedded default); false when workers run apart (`npm run worker`). */
  TEMPORAL_WORKER_IN_PROCESS: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
  /** Temporal payload keys `id:base64key,...` (32-byte AES keys; first encrypts, all decrypt). Unset: derived from a local secret (embedded default only). */
  TEMPORAL_CODEC_KEYS: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v : undefined))
    .superRefine((v, ctx) => {
      if (v === undefined) return;
      try {
        parseCodecKeyring(v);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      }
    }),
  /**
   * Origins of a Temporal Web UI that may call the codec endpoint from a browser with the ops session
   * cookie, comma-separated. The UI the embedded default starts is trusted apart (routes/ops/temporal-codec.ts).
   */
  TEMPORAL_UI_ORIGIN: z
    .string()
    .default('http://localhost:8233,http://127.0.0.1:8233')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url().refine((u) => URL.canParse(u) && new URL(u).origin === u, 'must be an origin: scheme://host[:port]')).min(1)),
  /** Activities one worker runs at once (an analysis is CPU-bound: about the number of cores). */
  TEMPORAL_WORKER_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** How long POST /cases/:id/analyze-consolidated waits for its workflow before answering 408. */
  CONSOLIDATED_DEADLINE_SECONDS: z.coerce.number().int().min(5).max(900).default(300),
  /**
   * PostgreSQL only: no statement of the request path may run longer (PostgreSQL cancels it and
   * the call fails uncharged). Migrations, ingest and projections run on a pool without it.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /**
   * PostgreSQL only: statements are prepared once per connection and then sent as one round
   * trip. false behind a pooler in transaction mode that cannot keep a session's statements.
   */
  DATABASE_PREPARED_STATEMENTS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** On SIGTERM, how long requests in flight may take to finish before the process closes under them. */
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().int().min(0).max(600).default(25),
  /** Admitted work whose workflow has not started within this is failed and its credits given back. */
  WORKFLOW_START_BOUND_SECONDS: z.coerce.number().int().min(10).max(3600).default(120),
  /** The workflows' execution timeout: work still running after it is failed and its credits given back. */
  WORKFLOW_RUN_MAX_SECONDS: z.coerce.number().int().min(60).max(86_400).default(1800),
  /** OpenAI-compatible chat completions for analysis and adjudication; unset = the local extractive analyser. */
  LLM_URL: optionalUrl,
  LLM_MODEL: z.string().trim().min(1).optional(),
  LLM_API_KEY: z.string().optional(),
  /** Hosts allowRemoteFetch may fetch from ('*.' prefix: any subdomain); the service's own storage host is always allowed. */
  REMOTE_FETCH_ALLOWED_HOSTS: z
    .string()
    .default('sci.gov.in,*.sci.gov.in,*.gov.in,*.nic.in,ecourts.gov.in,*.ecourts.gov.in')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    ),
  /** Where the Supreme Court serves the judgment PDFs its index links to (relative paths). */
  SC_DOCUMENTS_BASE_URL: z.url().default('https://main.sci.gov.in'),
  /** The court portal live timeline fetches read (see src/adapters/court-portal/ecourts-http-portal.ts); unset: refresh true answers 502. */
  COURT_PORTAL_URL: optionalUrl,
  /** Per portal call, body included; a live fetch's activity attempt covers a few calls. */
  COURT_PORTAL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** Where a 402 sends callers to buy credits: the deployment's billing page. */
  TOP_UP_URL: z.string().default('/dashboard/billing'),
  /** Where a Free-tier refusal (API_TIER_NOT_ALLOWED) sends callers to change plan. */
  UPGRADE_URL: z.string().default('/dashboard/billing/plans'),
  /**
   * The development setting for outbound requests: webhook endpoints may be http, and
   * deliveries and remote document fetches may reach loopback (a receiver on the developer's
   * machine), never private or link-local ranges. Allowed only while HOST is loopback (the
   * service refuses to start otherwise). Unset: true when DATABASE_URL is unset and HOST is
   * loopback, false otherwise.
   */
  WEBHOOK_ALLOW_INSECURE_URLS: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
  /** One delivery attempt, connection to last byte. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Establishing an attempt's connection (TCP and TLS): an address that does not answer fails fast, not after the whole timeout. */
  WEBHOOK_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2_000),
  /** Delivery workflows one account may have running at once (attempting or waiting out a backoff); the rest wait in the outbox. */
  WEBHOOK_ACCOUNT_IN_FLIGHT: z.coerce.number().int().min(1).max(100).default(4),
  /** Pending deliveries one account may have; a fact beyond it is recorded as a `dropped` delivery, never attempted. */
  WEBHOOK_ACCOUNT_PENDING_CAP: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  /** Attempts one worker process runs at once: above the in-flight limit times the accounts expected to be failing together. */
  WEBHOOK_WORKER_SLOTS: z.coerce.number().int().min(1).max(1_000).default(64),
  /** An endpoint is disabled after this many failed attempts in a row... */
  WEBHOOK_DISABLE_AFTER_FAILURES: z.coerce.number().int().min(1).max(100_000).default(50),
  /** ...spanning at least this long (first failure of the run to the last). */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86_400_000)
    .default(3 * 86_400_000),
  /** Bytes of a receiver's answer read before the attempt is abandoned as failed. */
  WEBHOOK_MAX_RESPONSE_BYTES: z.coerce.number().int().min(0).max(10_485_760).default(65_536),
  /** Temporal's retry policy for attempts: first retry after the initial interval, then times the coefficient, capped. */
  WEBHOOK_RETRY_INITIAL_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  WEBHOOK_RETRY_BACKOFF: z.coerce.number().min(1).max(10).default(4),
  WEBHOOK_RETRY_MAX_INTERVAL_MS: z.coerce.number().int().min(10).max(86_400_000).default(10_800_000),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(12),
  /**
   * How often recorded deliveries are looked for and their workflows started. Short: an
   * account's throughput is about WEBHOOK_ACCOUNT_IN_FLIGHT deliveries per pass.
   */
  WEBHOOK_DISPATCH_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(250),
  /** Deliveries that ended (delivered, failed, cancelled) are deleted this many days after they ended. */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Events (GET /events) are deleted this many days after they were recorded; at least 30, the catch-up window documented. */
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(30).max(3650).default(30),
});

/** The settings that hold a secret (a URL may carry a password), each readable from `<NAME>_FILE`. */
export const SECRET_SETTINGS = [
  'DATABASE_URL',
  'REDIS_URL',
  'CLICKHOUSE_URL',
  'MEILI_API_KEY',
  'ADMIN_TOKEN',
  'METRICS_TOKEN',
  'KEY_HASH_SECRET',
  'DOCUMENT_URL_SECRET',
  'TEMPORAL_CODEC_KEYS',
  'LLM_API_KEY',
  'EMBEDDINGS_API_KEY',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
] as const satisfies readonly (keyof z.input<typeof schema>)[];

/**
 * The environment as the schema reads it: blank values dropped, and each `<NAME>_FILE` read
 * into NAME (trailing newlines and blanks trimmed: editors and `echo` add one). Problems
 * are returned, not thrown, so they join the schema's in one message.
 */
function resolveEnvironment(env: Record<string, string | undefined>): { values: Record<string, string>; problems: string[] } {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value.trim() !== '') values[name] = value;
  const problems: string[] = [];
  for (const name of SECRET_SETTINGS) {
    const file = values[`${name}_FILE`];
    if (file === undefined) continue;
    if (values[name] !== undefined) {
      problems.push(`${name}: set ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      const secret = readFileSync(file, 'utf8').trimEnd();
      if (secret.trim() === '') problems.push(`${name}_FILE: ${file} is empty`);
      else values[name] = secret;
    } catch (error) {
      problems.push(`${name}_FILE: cannot read ${file} (${error instanceof Error && 'code' in error ? String(error.code) : 'error'})`);
    }
  }
  return { values, problems };
}

export type Config = Omit<z.infer<typeof schema>, 'CORPUS_DIR'> & { CORPUS_DIR: string | undefined };

/** The shared datasets sit beside the checkout; use them when nothing else is named. */
function defaultCorpusDir(): string | undefined {
  const candidate = resolve('../shared/data');
  return existsSync(candidate) ? candidate : undefined;
}

/** A configuration the service must not start with; entry points print its message as one line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const { values, problems } = resolveEnvironment(env);
  const parsed = schema.safeParse(values);
  if (!parsed.success || problems.length > 0) {
    const issues = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${[...problems, ...issues].join('; ')}`);
  }
  if (parsed.data.DATABASE_URL && !parsed.data.KEY_HASH_SECRET) {
    throw new ConfigError(
      'Invalid configuration: KEY_HASH_SECRET: required when DATABASE_URL is set (every instance must hash keys alike)',
    );
  }
  if (parsed.data.EMBEDDINGS_URL && (!parsed.data.EMBEDDINGS_MODEL || !parsed.data.EMBEDDINGS_DIMENSIONS)) {
    throw new ConfigError('Invalid configuration: EMBEDDINGS_MODEL and EMBEDDINGS_DIMENSIONS: required when EMBEDDINGS_URL is set');
  }
  if (parsed.data.TEMPORAL_ADDRESS && !parsed.data.TEMPORAL_CODEC_KEYS) {
    throw new ConfigError(
      'Invalid configuration: TEMPORAL_CODEC_KEYS: required when TEMPORAL_ADDRESS is set (every worker and client must share the keys)',
    );
  }
  if (parsed.data.API_PROCESSES !== 1 && !parsed.data.DATABASE_URL) {
    throw new ConfigError(
      'Invalid configuration: API_PROCESSES: more than one process needs DATABASE_URL (the embedded PGlite database is held by one process)',
    );
  }
  if (parsed.data.API_PROCESSES !== 1 && !parsed.data.TEMPORAL_ADDRESS) {
    throw new ConfigError(
      'Invalid configuration: API_PROCESSES: more than one process needs TEMPORAL_ADDRESS (each would start a workflow dev server on TEMPORAL_DEV_PORT)',
    );
  }
  if (parsed.data.LLM_URL && !parsed.data.LLM_MODEL) {
    throw new ConfigError('Invalid configuration: LLM_MODEL: required when LLM_URL is set');
  }
  if (parsed.data.WEBHOOK_ALLOW_INSECURE_URLS === true && !isLoopbackHost(parsed.data.HOST)) {
    throw new ConfigError(
      `Invalid configuration: WEBHOOK_ALLOW_INSECURE_URLS: true only while HOST is loopback (127.0.0.1, ::1 or localhost), and HOST is ${parsed.data.HOST}`,
    );
  }
  return { ...parsed.data, CORPUS_DIR: parsed.data.CORPUS_DIR ?? defaultCorpusDir() };
}

/** Where clients reach the API: PUBLIC_BASE_URL, else this listener (a wildcard host read as localhost). */
export function publicBaseUrl(config: Config): string {
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  return config.PUBLIC_BASE_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}${config.API_BASE_PATH}`;
}
