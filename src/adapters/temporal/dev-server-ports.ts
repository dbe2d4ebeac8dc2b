/**
 * What the embedded dev server checks before it starts, so that a service never runs its
 * workflows on another process's engine.
 *
 * The SDK's start of a dev server waits until its port accepts connections. When another
 * process already listens there (a second service on the same machine, or a dev server a
 * killed service left behind), the new server fails to bind and the SDK connects to the
 * other one: this service's workflows then land in another database, and the other
 * process's workers, with their own activities, may take them. So a taken port is given
 * up for a free one, and a dev server left behind on this service's own database file (its
 * service was killed with SIGKILL, which gives no chance to stop children) is stopped first.
 *
 * Finding that orphan reads /proc, so it happens on Linux only (the image and CI); elsewhere
 * the port check alone keeps the service on a server of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { basename } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const LOOPBACK = '127.0.0.1';

/** Whether something accepts TCP connections on 127.0.0.1:`port` (false only on a refusal). */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: LOOPBACK, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1_000, () => done(true));
    socket.once('connect', () => done(true));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code !== 'ECONNREFUSED'));
  });
}

/** A port nothing listens on now, chosen by the system. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port assigned'))));
    });
  });
}

/** `wanted` when nothing listens on it; otherwise a free port. */
export async function portToUse(wanted: number): Promise<{ port: number; taken: boolean }> {
  if (!(await portOpen(wanted))) return { port: wanted, taken: false };
  return { port: await freeLoopbackPort(), taken: true };
}

export interface DevServerProcess {
  readonly pid: number;
  /** Its parent is gone (it was re-parented) or is not a JavaScript runtime that could own it. */
  readonly orphaned: boolean;
}

function readProc(pid: string, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat after the name (which may hold spaces and parentheses): state, parent pid, ... */
function statFields(pid: string): string[] | undefined {
  const stat = readProc(pid, 'stat');
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

const RUNTIMES = /^(?:node|deno|bun)(?:\.exe)?$/;

/** Dev servers (`temporal server start-dev`) whose histories are in `dbFilename`; none where /proc is missing. */
export function devServersOn(dbFilename: string): DevServerProcess[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const found: DevServerProcess[] = [];
  for (const pid of pids) {
    const args = readProc(pid, 'cmdline')?.split('\0');
    if (!args?.includes('start-dev')) continue;
    const at = args.indexOf('--db-filename');
    if (at < 0 || args[at + 1] !== dbFilename) continue;
    const parent = statFields(pid)?.[1];
    const parentProgram = parent && parent !== '1' ? readProc(parent, 'cmdline')?.split('\0')[0] : undefined;
    found.push({ pid: Number(pid), orphaned: !parentProgram || !RUNTIMES.test(basename(parentProgram)) });
  }
  return found;
}

/** Running, and not a zombie waiting for a parent that does not reap (a container's PID 1, say). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return statFields(String(pid))?.[0] !== 'Z';
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone, or rejects if a SIGKILL leaves it. */
export async function stopProcess(pid: number, graceMs = 5_000): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  const gone = async (withinMs: number) => {
    const deadline = Date.now() + withinMs;
    while (processRunning(pid)) {
      if (Date.now() > deadline) return false;
      await delay(50);
    }
    return true;
  };
  signal('SIGTERM');
  if (await gone(graceMs)) return;
  signal('SIGKILL');
  if (!(await gone(graceMs))) throw new Error(`process ${String(pid)} outlived SIGKILL`);
}
