/**
 * The one Redis connection behind the cache, the rate limits and the distinct counters,
 * with every call bounded. Redis sits on the request path of every keyed call, so a Redis
 * that is down, frozen or cut off may cost a call at most COMMAND_TIMEOUT_MS per command;
 * then the caller's own failure mode (open or closed, listed in the README) decides.
 *
 * - Disconnected: commands are refused at once instead of queued (`disableOfflineQueue`),
 *   so nothing issued during an outage runs minutes later on reconnect.
 * - Connected but silent (a frozen or partitioned server): node-redis's own per-command
 *   timeout only covers commands not yet written to the socket, so each call races a timer
 *   here. Unanswered commands are capped (`commandsQueueMaxLength`), so a long freeze
 *   fails new calls at once. A socket that carries nothing for 5 s is dropped and the
 *   client reconnects; a ping every second keeps a healthy idle one busy.
 * - Counting writes (rate limits, distinct counters) run as Lua scripts that carry a
 *   deadline on Redis's own clock, LATE_AFTER_MS after the call, and do nothing past it. A
 *   command the caller gave up on can still reach Redis later (a frozen server thawing
 *   with it in its buffer); it then changes nothing. The deadline is estimated from the
 *   monotonic clock plus the offset to Redis's clock seen in the last reply: the service's
 *   wall clock (and a test's fake clock) never reaches Redis.
 */
import { createClient, type RedisClientType } from 'redis';

type RedisClient = RedisClientType;

/**
 * The bound of one call. A round trip within a region takes well under a millisecond and a
 * busy Redis a few; 250 ms is far above that, yet a keyed call making its two gate calls
 * against a frozen Redis still answers within about half a second.
 */
export const COMMAND_TIMEOUT_MS = 250;
/**
 * A counting command Redis runs later than this after the call does nothing. Longer than
 * the call's bound because a busy event loop can hold a command back before it is written
 * (that must not fail it); so a command Redis runs between 0.25 and 1 s late, its caller
 * having given up, still counts: one rate-limit hit, or one slot of a cap for a refused call.
 */
export const LATE_AFTER_MS = 1_000;
/** Start-up waits this long for a first connection, then fails with a message. */
const CONNECT_TIMEOUT_MS = 5_000;

/** A call that got no answer in time, or that Redis ran after its deadline (and so ignored). */
class RedisTimeoutError extends Error {
  override readonly name = 'RedisTimeoutError';
}

/**
 * The first lines of every counting script: Redis's time in ms as `now`, and the deadline
 * check. ARGV[1] is the deadline; a script's own arguments start at ARGV[2]. Replies are
 * `{now, applied, ...values}`, `applied` 0 when the deadline had passed and nothing ran.
 */
const DEADLINE_GUARD = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if now > tonumber(ARGV[1]) then return {now, 0} end
`;

export class RedisConnection {
  /** Redis's clock minus `performance.now()`, from the latest reply that carried Redis's time. */
  #offsetMs = 0;

  constructor(private readonly client: RedisClient) {}

  /** Runs one command, rejected with `RedisTimeoutError` when no answer comes in time. */
  call<T>(command: (client: RedisClient) => Promise<T>): Promise<T> {
    return bounded(command(this.client), COMMAND_TIMEOUT_MS, `Redis did not answer within ${COMMAND_TIMEOUT_MS} ms`);
  }

  /**
   * Runs a counting script (see DEADLINE_GUARD) bounded like `call`, and returns its
   * `arity` values. `body` runs after the guard, sees `now`, and returns `{now, 1, ...values}`.
   */
  async count(body: string, keys: readonly string[], args: readonly (string | number)[], arity: number): Promise<number[]> {
    const deadline = Math.floor(performance.now() + this.#offsetMs + LATE_AFTER_MS);
    const reply = await this.call((c) =>
      c.eval(DEADLINE_GUARD + body, { keys: [...keys], arguments: [String(deadline), ...args.map(String)] }),
    );
    const [now, applied, ...values] = Array.isArray(reply) && reply.every((v) => typeof v === 'number') ? reply : [];
    if (now === undefined || (applied === 1 ? values.length !== arity : applied !== 0))
      throw new Error('unexpected reply from a Redis script');
    this.#observe(now);
    // Applied 0 seen in time: our estimate of Redis's clock was off (its clock jumped, another
    // server answers after a failover) or this process stalled for a second before sending.
    // The offset is corrected from this reply; this call failed.
    if (applied === 0) throw new RedisTimeoutError('Redis ran the call after its deadline and ignored it');
    return values;
  }

  /** Reads Redis's clock once, so the first deadlines are right. */
  async syncClock(): Promise<void> {
    const [seconds, micros] = await this.call((c) => c.time());
    this.#observe(Number(seconds) * 1000 + Math.floor(Number(micros) / 1000));
  }

  /** Closes once the calls in flight are answered, or at once when Redis does not answer them in time. */
  async close(): Promise<void> {
    await bounded(this.client.close(), COMMAND_TIMEOUT_MS, 'Redis did not answer the calls in flight').catch(() => this.client.destroy());
  }

  #observe(redisNowMs: number): void {
    this.#offsetMs = redisNowMs - performance.now();
  }
}

/**
 * `work`, or a rejection after `ms`; the timer never outlives the race. When the timer
 * fires the rejection waits one turn of the event loop: after a busy stretch (CPU-heavy
 * scoring, a GC pause) timers run before sockets are read, and an answer that arrived
 * meanwhile must win over a timeout that only measured our own stall.
 */
async function bounded<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(new RedisTimeoutError(message))), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Connects, or fails within CONNECT_TIMEOUT_MS naming the host (never the password). */
export async function connectRedis(url: string): Promise<RedisConnection> {
  const client: RedisClient = createClient({
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: 1_000,
    pingInterval: 1_000,
    // Every call is bounded here (`bounded`); node-redis's own 5 s default timeout would add a
    // timer and an abort signal per command, each firing long after its command was answered.
    commandOptions: { timeout: 0 },
    socket: { connectTimeout: 2_000, socketTimeout: 5_000, reconnectStrategy: (retries) => Math.min(retries * 200, 2_000) },
  });
  // Without a listener, a dropped connection would crash the process; health reports it instead.
  client.on('error', () => undefined);
  const connecting = client.connect();
  try {
    await bounded(connecting, CONNECT_TIMEOUT_MS, `Redis at ${new URL(url).host} did not answer within ${CONNECT_TIMEOUT_MS} ms`);
    const connection = new RedisConnection(client);
    await connection.syncClock();
    return connection;
  } catch (error) {
    connecting.catch(() => undefined);
    client.destroy();
    throw error;
  }
}
