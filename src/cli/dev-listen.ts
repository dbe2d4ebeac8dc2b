/**
 * `court-records dev listen`: a webhook receiver for development, like `stripe listen`. It
 * logs in to the running service as a dashboard user, starts an HTTP receiver on loopback,
 * registers it as a webhook endpoint of that user's billing account, and prints every
 * delivery that verifies (with the SDK's verifyWebhook, against the secret the service
 * showed once) as one JSON line on stdout. A delivery that does not verify is answered 400
 * and reported on stderr. SIGINT or SIGTERM, or --count deliveries, removes the endpoint and
 * exits 0. Plain http to loopback is allowed only while the service listens on loopback
 * (WEBHOOK_ALLOW_INSECURE_URLS, on by default there without DATABASE_URL); elsewhere point a
 * real https endpoint at the service.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { verifyWebhook } from '../../sdk/src/webhooks.ts';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhook/webhook-endpoints.ts';
import type { AdminIo } from './admin.ts';

export const LISTEN_USAGE = `usage: court-records dev listen --email EMAIL [--password PASSWORD] [--url URL] [--port N] [--events LIST] [--mode live|test] [--count N]
  registers a local receiver as a webhook endpoint of the account, and prints each verified delivery as a JSON line
  (the password may come from COURT_RECORDS_PASSWORD instead; --events: ${WEBHOOK_EVENT_TYPES.join(',')};
  --mode test: the events of calls made with crk_test keys instead of live ones)`;

/** A delivery larger than this is refused: the service's payloads carry ids only. */
const MAX_BODY_BYTES = 1_000_000;

export class ListenUsageError extends Error {}

interface Listen {
  readonly email: string;
  readonly password: string;
  readonly port: number;
  readonly events: readonly string[];
  readonly mode: 'live' | 'test';
  readonly count: number | undefined;
}

function whole(text: string | undefined, name: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new ListenUsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return value;
}

function parse(argv: readonly string[], env: AdminIo['env']): Listen & { url: string | undefined } {
  let flags: { email?: string; password?: string; url?: string; port?: string; events?: string; mode?: string; count?: string };
  try {
    flags = parseArgs({
      args: [...argv],
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        url: { type: 'string' },
        port: { type: 'string' },
        events: { type: 'string' },
        mode: { type: 'string' },
        count: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new ListenUsageError(error instanceof Error ? error.message : String(error));
  }
  const password = flags.password ?? env.COURT_RECORDS_PASSWORD;
  if (!flags.email || !password) throw new ListenUsageError('--email and --password (or COURT_RECORDS_PASSWORD) are required');
  const events = (flags.events ?? WEBHOOK_EVENT_TYPES.join(',')).split(',').map((e) => e.trim());
  const unknown = events.filter((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0 || events.length === 0) throw new ListenUsageError(`--events takes ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  const mode = flags.mode ?? 'live';
  if (mode !== 'live' && mode !== 'test') throw new ListenUsageError('--mode is live or test');
  return {
    email: flags.email,
    password,
    url: flags.url,
    port: whole(flags.port, 'port', 0, 65_535) ?? 0,
    events,
    mode,
    count: whole(flags.count, 'count', 1, 1_000_000),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `serviceUrl`: where the service answers (dev.ts resolves it as `dev seed` does). */
export async function runListen(argv: readonly string[], io: AdminIo, serviceUrl: (flag: string | undefined) => string): Promise<number> {
  const options = parse(argv, io.env);
  const service = serviceUrl(options.url);
  const login = await io.fetch(`${service}/api/settings/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: options.email, password: options.password }),
  });
  const session = /(?:^|[;,]\s*)session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  const loggedIn = (await login.json().catch(() => ({}))) as { data?: { csrfToken?: string }; code?: string };
  if (!login.ok || session === undefined || !loggedIn.data?.csrfToken) {
    io.stderr.write(`court-records dev listen: login refused (${login.status} ${loggedIn.code ?? ''})\n`);
    return 1;
  }
  const headers = { Cookie: `session=${session}`, 'X-CSRF-Token': loggedIn.data.csrfToken, 'Content-Type': 'application/json' };

  /** The endpoint's secret, known once the service registered the receiver (it is shown once). */
  const registration: { secret?: string } = {};
  let received = 0;
  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (finish = resolve));
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      try {
        const secret = registration.secret;
        if (body === undefined || secret === undefined) throw new Error(body === undefined ? 'body too large' : 'not registered yet');
        const event = await verifyWebhook({ payload: body, headers: req.headers, secret });
        io.stdout.write(`${JSON.stringify({ webhookId: req.headers['webhook-id'], ...event })}\n`);
        res.writeHead(204).end();
        received += 1;
        if (options.count !== undefined && received >= options.count) finish(0);
      } catch (error) {
        io.stderr.write(`court-records dev listen: refused a delivery: ${error instanceof Error ? error.message : String(error)}\n`);
        res.writeHead(400).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/webhooks`;
  const registered = await io.fetch(`${service}/api/settings/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url, eventTypes: options.events, mode: options.mode }),
  });
  const endpoint = (await registered.json().catch(() => ({}))) as {
    data?: { id: string; secret: string };
    code?: string;
    message?: string;
  };
  if (!registered.ok || !endpoint.data) {
    server.close();
    io.stderr.write(
      `court-records dev listen: the service refused the endpoint: ${endpoint.code ?? registered.status} ${endpoint.message ?? ''}\n`,
    );
    return 1;
  }
  registration.secret = endpoint.data.secret;
  io.stderr.write(`listening on ${url} for ${options.mode} ${options.events.join(', ')} (endpoint ${endpoint.data.id}); Ctrl-C to stop\n`);
  const stop = () => finish(0);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const code = await done;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  // Leave nothing registered behind: the service would keep retrying a receiver that is gone.
  await io
    .fetch(`${service}/api/settings/webhooks/${encodeURIComponent(endpoint.data.id)}`, { method: 'DELETE', headers })
    .catch(() => undefined);
  await new Promise((resolve) => server.close(resolve));
  return code;
}
