/**
 * `court-records dev listen --forward-to URL --api-base URL --api-key KEY`: like `stripe
 * listen --forward-to`, for a service anywhere (no session, no endpoint registered there).
 * It polls GET /events from the newest event at start, oldest first, keeping nothing but its
 * position in memory, and POSTs each event to the local URL exactly as a webhook delivery
 * would carry it (the event object as the body, Standard Webhooks headers), signed with a
 * secret made at start and printed once, so the receiver's verification code runs
 * unchanged. One line per event on stdout; a forward that fails is reported on stderr and
 * not retried (GET /events keeps it for 30 days). SIGINT, SIGTERM or --count events ends it.
 */
import { parseArgs } from 'node:util';
import { generateWebhookSecret, signDelivery } from '../adapters/webhooks/signing.ts';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhook/webhook-endpoints.ts';
import type { AdminIo } from './admin.ts';
import { ListenUsageError } from './dev-listen.ts';

export const FORWARD_USAGE = `usage: court-records dev listen --forward-to URL --api-base URL --api-key KEY [--events LIST] [--interval MS] [--count N]
  polls GET /events of the deployment at --api-base (e.g. https://api.example.in/api/v1/prod) with the key (or COURT_RECORDS_API_KEY)
  and POSTs each new event to --forward-to, signed like a webhook with a secret printed at start`;

interface Forward {
  readonly forwardTo: string;
  readonly apiBase: string;
  readonly apiKey: string;
  readonly events: readonly string[] | undefined;
  readonly intervalMs: number;
  readonly count: number | undefined;
}

interface Event {
  readonly id: string;
  readonly type: string;
}

function parse(argv: readonly string[], env: AdminIo['env']): Forward {
  let flags: Partial<Record<'forward-to' | 'api-base' | 'api-key' | 'events' | 'interval' | 'count', string>>;
  try {
    flags = parseArgs({
      args: [...argv],
      options: {
        'forward-to': { type: 'string' },
        'api-base': { type: 'string' },
        'api-key': { type: 'string' },
        events: { type: 'string' },
        interval: { type: 'string' },
        count: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new ListenUsageError(error instanceof Error ? error.message : String(error));
  }
  const apiKey = flags['api-key'] ?? env.COURT_RECORDS_API_KEY;
  if (!flags['forward-to'] || !flags['api-base'] || !apiKey)
    throw new ListenUsageError('--forward-to, --api-base and --api-key (or COURT_RECORDS_API_KEY) are required');
  for (const [name, value] of [
    ['forward-to', flags['forward-to']],
    ['api-base', flags['api-base']],
  ] as const)
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new ListenUsageError(`--${name} must be an http(s) URL`);
  const events = flags.events?.split(',').map((e) => e.trim());
  if (events?.some((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e)))
    throw new ListenUsageError(`--events takes ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  const number = (text: string | undefined, name: string, min: number, max: number) => {
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
      throw new ListenUsageError(`--${name} must be a whole number from ${min} to ${max}`);
    return Number(text);
  };
  return {
    forwardTo: flags['forward-to'],
    apiBase: flags['api-base'].endsWith('/') ? flags['api-base'].slice(0, -1) : flags['api-base'],
    apiKey,
    events,
    intervalMs: number(flags.interval, 'interval', 100, 60_000) ?? 1_000,
    count: number(flags.count, 'count', 1, 1_000_000),
  };
}

export async function runForward(argv: readonly string[], io: AdminIo): Promise<number> {
  const options = parse(argv, io.env);
  const get = async (query: URLSearchParams): Promise<{ data: Event[]; pagination: { hasMore: boolean } }> => {
    if (options.events) query.set('type', options.events.join(','));
    const res = await io.fetch(`${options.apiBase}/events?${query.toString()}`, { headers: { 'X-API-Key': options.apiKey } });
    const body = (await res.json().catch(() => ({}))) as { data?: Event[]; pagination?: { hasMore: boolean }; code?: string };
    if (!res.ok || !body.data || !body.pagination) throw new Error(`GET /events answered ${String(res.status)} ${body.code ?? ''}`);
    return { data: body.data, pagination: body.pagination };
  };

  // Only what happens from now on, as stripe listen does: start after the newest event there is.
  let cursor: string | undefined;
  try {
    cursor = (await get(new URLSearchParams({ limit: '1' }))).data[0]?.id;
  } catch (error) {
    io.stderr.write(`court-records dev listen: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const secret = generateWebhookSecret();
  io.stderr.write(
    `Ready! Forwarding events of ${options.apiBase} to ${options.forwardTo}\nYour webhook signing secret is ${secret} (Ctrl-C to stop)\n`,
  );

  let stopped = false;
  let wake: () => void = () => undefined;
  const stop = () => {
    stopped = true;
    wake();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let forwarded = 0;
  let code = 0;
  try {
    while (!stopped) {
      const page = await get(
        new URLSearchParams({ order: 'asc', limit: '100', ...(cursor === undefined ? {} : { startingAfter: cursor }) }),
      );
      for (const event of page.data) {
        const body = JSON.stringify(event);
        const timestamp = Math.floor(Date.now() / 1000);
        const headers = {
          'Content-Type': 'application/json',
          'webhook-id': event.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signDelivery({ id: event.id, timestamp, body, secret }),
        };
        const status = await io
          .fetch(options.forwardTo, { method: 'POST', headers, body })
          .then((res) => res.status)
          .catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
        if (typeof status === 'number' && status < 300) io.stdout.write(`${JSON.stringify({ forwarded: status, ...event })}\n`);
        else io.stderr.write(`court-records dev listen: forwarding ${event.id} (${event.type}) failed: ${String(status)}\n`);
        cursor = event.id;
        forwarded += 1;
        if (options.count !== undefined && forwarded >= options.count) stopped = true;
        if (stopped) break;
      }
      if (!page.pagination.hasMore && !stopped)
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, options.intervalMs);
        });
    }
  } catch (error) {
    io.stderr.write(`court-records dev listen: ${error instanceof Error ? error.message : String(error)}\n`);
    code = 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  return code;
}
