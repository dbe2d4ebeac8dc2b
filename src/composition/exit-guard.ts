/**
 * The bound a stop signal gives a process: the requests in flight get SHUTDOWN_DRAIN_SECONDS,
 * closing gets CLOSE_BOUND_MS, and the process is gone EXIT_GRACE_MS after that, whatever
 * state it is in.
 *
 * An in-process timer cannot promise the last part. `process.exit` waits for every worker
 * thread to end, and a worker thread inside a native call (the embedded ClickHouse's
 * worker in a query or its shutdown) does not end until that call returns: the process
 * then runs its exit handlers (the data folder's lock is released) and stays, for as long
 * as the call takes. A main thread held by synchronous work (PGlite runs its queries on it)
 * fires no timer either. So the bound is kept by a small watchdog process started at the
 * signal: it kills this process (SIGKILL) at the deadline, and ends by itself the moment
 * this process is gone (its stdin, a pipe from this process, closes), so it can never
 * signal another process that took the pid over.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** How long closing may take once the requests are drained (the lifecycle's bound). */
export const CLOSE_BOUND_MS = 10_000;
/** How long `process.exit` may take once called: worker threads end, exit handlers run. */
export const EXIT_GRACE_MS = 2_000;

/** After a stop signal: when closing must have ended, and when the process must be gone (ms after the signal). */
export function stopDeadlines(drainSeconds: number): { readonly closedByMs: number; readonly goneByMs: number } {
  const closedByMs = drainSeconds * 1000 + CLOSE_BOUND_MS;
  return { closedByMs, goneByMs: closedByMs + EXIT_GRACE_MS };
}

/**
 * The watchdog: reads deadlines from stdin, one JSON line each ({ inMs, reason }); the
 * earliest wins. At it, names the reason on stderr and kills the watched pid.
 */
const WATCHDOG = `
const pid = Number(process.argv[1]);
let timer;
let due = Infinity;
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let at = buffered.indexOf('\\n'); at >= 0; at = buffered.indexOf('\\n')) {
    const { inMs, reason } = JSON.parse(buffered.slice(0, at));
    buffered = buffered.slice(at + 1);
    if (Date.now() + inMs >= due) continue;
    due = Date.now() + inMs;
    clearTimeout(timer);
    timer = setTimeout(() => {
      process.stderr.write('court-records: ' + reason + ': killed (SIGKILL)\\n');
      try { process.kill(pid, 'SIGKILL'); } catch {}
      process.exit(0);
    }, inMs);
  }
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
`;

export interface ExitGuard {
  /** Kills this process `inMs` from now unless it has ended, naming `reason`; an earlier deadline already set stands. */
  killAfter(inMs: number, reason: string): void;
  /** `process.exit(code)`, the process killed EXIT_GRACE_MS later if a thread still holds it. */
  exit(code: number): never;
}

/** Starts the watchdog over this process; it keeps nothing alive, and nothing of it outlives this process. */
export function exitGuard(): ExitGuard {
  let watchdog: ChildProcess | undefined;
  try {
    watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid)], { stdio: ['pipe', 'ignore', 'inherit'] });
    watchdog.on('error', () => undefined);
    watchdog.stdin?.on('error', () => undefined);
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  } catch {
    // No watchdog (no process may be started): the in-process bound still holds unless a thread holds the exit.
    watchdog = undefined;
  }
  const killAfter = (inMs: number, reason: string): void => {
    watchdog?.stdin?.write(`${JSON.stringify({ inMs, reason })}\n`);
  };
  return {
    killAfter,
    exit: (code) => {
      killAfter(
        EXIT_GRACE_MS,
        `exit(${String(code)}) did not end the process in ${String(EXIT_GRACE_MS)} ms (a worker thread in a native call)`,
      );
      process.exit(code);
    },
  };
}
