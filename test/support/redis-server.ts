/**
 * A private redis-server for fault tests: its own port and temp folder, no persistence, so a
 * test may freeze it (SIGSTOP: a connected server that never answers), thaw it, kill it and
 * start it again on the same port, without touching the Redis other tests share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './service-process.ts';

export interface PrivateRedis {
  readonly url: string;
  /** SIGSTOP: connections stay open, nothing is answered. */
  freeze(): void;
  /** SIGCONT after a freeze. */
  thaw(): void;
  /** SIGKILL, then wait for the process to be gone. */
  kill(): Promise<void>;
  /** Starts a new server on the same port (after `kill`), empty. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Resolves once the server on `port` answers PING; rejects after `withinMs`. */
async function answersPing(port: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const pong = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const done = (ok: boolean) => {
        socket.destroy();
        resolve(ok);
      };
      socket.setTimeout(200, () => done(false));
      socket.once('error', () => done(false));
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    });
    if (pong) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'court-records-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    await answersPing(port, 5000);
  };
  const signal = (name: NodeJS.Signals) => {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, name);
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    signal('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    kill,
    restart: start,
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
