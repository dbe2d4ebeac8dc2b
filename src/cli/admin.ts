/**
 * `court-records admin <group> <action> [flags]`: a thin client of the admin HTTP API, so
 * it works the same against a local embedded instance and a deployed one. It talks to
 * COURT_RECORDS_URL (or --url) with the bearer ADMIN_TOKEN. Success prints the response's
 * `data` as one JSON object on stdout and exits 0; a refusal prints
 * `court-records admin: <code>: <message>` on stderr and exits 1; a bad command line
 * prints usage on stderr and exits 2. Flags are checked here only as far as the command
 * line goes (which flags, which values); the service decides everything else.
 */
import { parseArgs } from 'node:util';
import { TIERS } from '../domain/access/tiers.ts';
import { GRANT_SOURCES } from '../domain/credits/ledger.ts';
import { KEY_MODES } from '../domain/api-key/api-key.ts';

type Flags = Readonly<Record<string, string | boolean | undefined>>;

export interface AdminRequest {
  readonly method: 'POST' | 'PUT';
  readonly path: string;
  readonly body?: Readonly<Record<string, unknown>>;
}

interface Command {
  readonly synopsis: string;
  readonly strings: readonly string[];
  readonly booleans: readonly string[];
  readonly required: readonly string[];
  build(flags: Flags): AdminRequest;
}

class UsageError extends Error {}

const ROLES = ['MEMBER', 'ORG_ADMIN'] as const;
const STANDINGS = ['active', 'suspended', 'billing_inactive'] as const;
const REQUEST_TIMEOUT_MS = 30_000;

function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** A flag holding a JSON object (validated by the service, which knows the fields). */
function parseJson(value: string, name: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new UsageError(`--${name} must be a JSON object, e.g. '{"requestsPerMinute": 5000}'`);
  }
}

/** A required flag naming a record: an empty value would address a different route. */
function id(flags: Flags, name: string): string {
  const value = text(flags, name)?.trim();
  if (!value) throw new UsageError(`--${name} must not be empty`);
  return encodeURIComponent(value);
}

/** Comma-separated CIDRs; an empty string is the empty list (it clears an allowlist). */
function list(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/** A whole number of credits; the service refuses zero and negatives with its own message. */
function credits(flags: Flags, name: string): number {
  const value = text(flags, name)?.trim() ?? '';
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number of credits`);
  return Number(value);
}

function oneOf<T extends string>(flags: Flags, name: string, allowed: readonly T[]): T | undefined {
  const value = text(flags, name);
  if (value === undefined) return undefined;
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return found;
}

const COMMANDS: Readonly<Record<string, Command>> = {
  'org create': {
    synopsis: 'org create --name NAME [--allowlist CIDR,CIDR] [--strict-allowlist]',
    strings: ['name', 'allowlist'],
    booleans: ['strict-allowlist'],
    required: ['name'],
    build: (flags) => {
      const allowlist = text(flags, 'allowlist');
      return {
        method: 'POST',
        path: '/admin/organizations',
        body: {
          name: text(flags, 'name'),
          ...(allowlist === undefined ? {} : { allowlist: list(allowlist) }),
          strictAllowlist: flags['strict-allowlist'] === true,
        },
      };
    },
  },
  'org deactivate': {
    synopsis: 'org deactivate --org ORG_ID',
    strings: ['org'],
    booleans: [],
    required: ['org'],
    build: (flags) => ({ method: 'POST', path: `/admin/organizations/${id(flags, 'org')}/deactivate` }),
  },
  'org allowlist': {
    synopsis: 'org allowlist --org ORG_ID --set CIDR,CIDR [--strict | --no-strict]',
    strings: ['org', 'set'],
    booleans: ['strict', 'no-strict'],
    required: ['org', 'set'],
    build: (flags) => {
      if (flags.strict === true && flags['no-strict'] === true) throw new UsageError('--strict and --no-strict exclude each other');
      // Neither flag: the service keeps the organisation's current setting.
      const strict = flags.strict === true ? { strict: true } : flags['no-strict'] === true ? { strict: false } : {};
      return {
        method: 'PUT',
        path: `/admin/organizations/${id(flags, 'org')}/allowlist`,
        body: { allowlist: list(text(flags, 'set') ?? ''), ...strict },
      };
    },
  },
  'user create': {
    synopsis:
      'user create --email E --name N --tier free|payg|scale|enterprise [--org ORG_ID] [--role MEMBER|ORG_ADMIN] [--trial] [--unverified] [--no-api-access] [--password P] [--limits JSON]',
    strings: ['email', 'name', 'tier', 'org', 'role', 'password', 'limits'],
    booleans: ['trial', 'unverified', 'no-api-access'],
    required: ['email', 'name', 'tier'],
    build: (flags) => {
      const organizationId = text(flags, 'org');
      const role = oneOf(flags, 'role', ROLES);
      const password = text(flags, 'password');
      const limits = text(flags, 'limits');
      return {
        method: 'POST',
        path: '/admin/users',
        body: {
          email: text(flags, 'email'),
          name: text(flags, 'name'),
          tier: oneOf(flags, 'tier', TIERS),
          ...(organizationId === undefined ? {} : { organizationId }),
          ...(role === undefined ? {} : { role }),
          trial: flags.trial === true,
          emailVerified: flags.unverified !== true,
          apiAccess: flags['no-api-access'] !== true,
          ...(password === undefined ? {} : { password }),
          ...(limits === undefined ? {} : { limitOverrides: parseJson(limits, 'limits') }),
        },
      };
    },
  },
  'user set-standing': {
    synopsis: 'user set-standing --user USER_ID --standing active|suspended|billing_inactive',
    strings: ['user', 'standing'],
    booleans: [],
    required: ['user', 'standing'],
    build: (flags) => ({
      method: 'PUT',
      path: `/admin/users/${id(flags, 'user')}/standing`,
      body: { standing: oneOf(flags, 'standing', STANDINGS) },
    }),
  },
  'user erase': {
    synopsis: 'user erase --user USER_ID   (final: shreds the personal data; ledger, usage and audit stay)',
    strings: ['user'],
    booleans: [],
    required: ['user'],
    build: (flags) => ({ method: 'POST', path: `/admin/users/${id(flags, 'user')}/erase` }),
  },
  'key create': {
    synopsis: 'key create --user USER_ID [--name NAME] [--mode live|test]',
    strings: ['user', 'name', 'mode'],
    booleans: [],
    required: ['user'],
    build: (flags) => {
      const name = text(flags, 'name');
      const mode = oneOf(flags, 'mode', KEY_MODES);
      return {
        method: 'POST',
        path: `/admin/users/${id(flags, 'user')}/keys`,
        body: { ...(name === undefined ? {} : { name }), ...(mode === undefined ? {} : { mode }) },
      };
    },
  },
  'key revoke': {
    synopsis: 'key revoke --key KEY_ID',
    strings: ['key'],
    booleans: [],
    required: ['key'],
    build: (flags) => ({ method: 'POST', path: `/admin/keys/${id(flags, 'key')}/revoke`, body: {} }),
  },
  'credits grant': {
    synopsis:
      'credits grant --user USER_ID --amount CREDITS [--note TEXT] [--source grant|purchase|correction] [--expires-at ISO] [--payment-reference REF]',
    strings: ['user', 'amount', 'note', 'source', 'expires-at', 'payment-reference'],
    booleans: [],
    required: ['user', 'amount'],
    build: (flags) => {
      const note = text(flags, 'note');
      const source = oneOf(flags, 'source', GRANT_SOURCES);
      const expiresAt = text(flags, 'expires-at');
      const paymentReference = text(flags, 'payment-reference');
      return {
        method: 'POST',
        path: `/admin/users/${id(flags, 'user')}/credits`,
        body: {
          amount: credits(flags, 'amount'),
          ...(note === undefined ? {} : { note }),
          ...(source === undefined ? {} : { source }),
          ...(expiresAt === undefined ? {} : { expiresAt }),
          ...(paymentReference === undefined ? {} : { paymentReference }),
        },
      };
    },
  },
  'case restrict': {
    synopsis: 'case restrict --case CASE_ID',
    strings: ['case'],
    booleans: [],
    required: ['case'],
    build: (flags) => ({ method: 'POST', path: `/admin/cases/${id(flags, 'case')}/restrict` }),
  },
};

const USAGE = [
  'usage: court-records admin <command> [--url URL]',
  ...Object.values(COMMANDS).map((c) => `  ${c.synopsis}`),
  '  watermark trace FILE  name the billing account a leaked extract was served to (reads the database directly)',
  'The service is COURT_RECORDS_URL (or --url); the bearer token is ADMIN_TOKEN.',
].join('\n');

export interface AdminIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>;
}

interface Parsed {
  readonly baseUrl: string;
  readonly token: string;
  readonly request: AdminRequest;
}

function parse(argv: readonly string[], env: AdminIo['env']): Parsed | 'help' {
  const [group, action, ...rest] = argv;
  if (group === undefined || group === '--help' || group === '-h' || action === '--help') return 'help';
  const command = COMMANDS[`${group} ${action ?? ''}`];
  if (!command) throw new UsageError(`unknown command: ${[group, action].filter(Boolean).join(' ')}`);
  const options: Record<string, { type: 'string' | 'boolean'; multiple: false }> = { url: { type: 'string', multiple: false } };
  for (const name of command.strings) options[name] = { type: 'string', multiple: false };
  for (const name of command.booleans) options[name] = { type: 'boolean', multiple: false };
  let flags: Flags;
  try {
    flags = parseArgs({ args: [...rest], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n  ${command.synopsis}`);
  }
  const missing = command.required.filter((name) => flags[name] === undefined);
  if (missing.length > 0) throw new UsageError(`missing ${missing.map((m) => `--${m}`).join(', ')}\n  ${command.synopsis}`);
  const baseUrl = text(flags, 'url') ?? env.COURT_RECORDS_URL;
  if (!baseUrl) throw new UsageError('set COURT_RECORDS_URL or pass --url');
  const token = env.ADMIN_TOKEN;
  if (!token) throw new UsageError('set ADMIN_TOKEN to the service’s admin token');
  return { baseUrl, token, request: command.build(flags) };
}

/** Joins onto the base URL keeping any path prefix it has (a service behind a proxy). */
function endpoint(baseUrl: string, path: string): string {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return new URL(path.replace(/^\//, ''), base).toString();
}

function describeFailure(status: number, body: unknown): string {
  if (typeof body === 'object' && body !== null) {
    const { code, message } = body as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      // The admin API is absent when the service has no ADMIN_TOKEN: say so.
      const hint = code === 'ROUTE_NOT_FOUND' ? ' (is ADMIN_TOKEN set on the service?)' : '';
      return `${code}: ${typeof message === 'string' ? message : `HTTP ${status}`}${hint}`;
    }
  }
  return `HTTP_${status}: unexpected response from the service`;
}

export async function runAdmin(argv: readonly string[], io: AdminIo): Promise<number> {
  let parsed: Parsed | 'help';
  try {
    parsed = parse(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`court-records admin: ${error.message}\n`);
    return 2;
  }
  if (parsed === 'help') {
    io.stderr.write(`${USAGE}\n`);
    return 0;
  }
  const result = await callAdmin(parsed.baseUrl, parsed.token, parsed.request, io.fetch);
  if ('failure' in result) {
    io.stderr.write(`court-records admin: ${result.failure}\n`);
    return result.usage ? 2 : 1;
  }
  io.stdout.write(`${JSON.stringify(result.data)}\n`);
  return 0;
}

export type AdminResult = { readonly data: Readonly<Record<string, unknown>> } | { readonly failure: string; readonly usage: boolean };

/** One admin API call: its `data` object, or one line saying why not (a bad URL counts as usage). */
export async function callAdmin(baseUrl: string, token: string, request: AdminRequest, fetcher: AdminIo['fetch']): Promise<AdminResult> {
  let url: string;
  try {
    url = endpoint(baseUrl, request.path);
  } catch {
    return { failure: `not a URL: ${baseUrl}`, usage: true };
  }
  let response: Response;
  let body: unknown;
  try {
    response = await fetcher(url, {
      method: request.method,
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: 'application/json',
        ...(request.body ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(request.body ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    body = await response.json().catch(() => undefined);
  } catch (error) {
    return { failure: `cannot reach ${baseUrl}: ${error instanceof Error ? error.message : String(error)}`, usage: false };
  }
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!response.ok || typeof data !== 'object' || data === null) return { failure: describeFailure(response.status, body), usage: false };
  return { data: data as Readonly<Record<string, unknown>> };
}

export function adminCommand(argv: string[]): Promise<number> {
  return runAdmin(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, fetch: (input, init) => fetch(input, init) });
}
