/**
 * Starts the real service as a child process (under Node or Deno) on a free port with its
 * own data folder, waits until /health answers, and stops it afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devServersOn, freeLoopbackPort, stopProcess } from '../../src/adapters/temporal/dev-server-ports.ts';

export interface RunningService {
  readonly url: string;
  /** The service's DATA_DIR (its embedded database and local secrets). */
  readonly dataDir: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** What a command printed and how it exited. */
export interface CommandRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (the CLI, a second service), with `env` over this process's environment, in `cwd` (this one's by default). */
export function runCommand(command: string, args: readonly string[], env: Record<string, string>, cwd?: string): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(cwd ? { cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A loopback port nothing listens on now. */
export const freePort = freeLoopbackPort;

const COMMANDS = {
  node: [process.execPath, ['--import', 'tsx', 'src/main.ts']],
  deno: ['node_modules/.bin/deno', ['run', '--allow-all', 'src/main.deno.ts']],
} as const;

/** How a service process ended after `terminate()`. */
export interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** From the signal to the exit. */
  readonly ms: number;
}

export interface StartedService extends RunningService {
  readonly pid: number;
  /** SIGTERM, then waits for the exit (at most `waitMs`; undefined when it had not ended by then). */
  terminate(waitMs: number): Promise<Ended | undefined>;
}

/** The service's own address, from its "listening" line: it binds PORT=0 to a free port itself, so no other process can take it first. */
function listeningUrl(output: string): string | undefined {
  const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)\//.exec(output.split('\n').find((line) => line.includes('"msg":"listening"')) ?? '');
  return match?.[1];
}

export async function startService(runtime: keyof typeof COMMANDS, env: Record<string, string>): Promise<StartedService> {
  const dataDir = mkdtempSync(join(tmpdir(), `court-records-${runtime}-`));
  const [command, args] = COMMANDS[runtime];
  // Deno's entry binds after composing: there a port is chosen here.
  const port = runtime === 'deno' ? String(await freePort()) : '0';
  let output = '';
  const child: ChildProcess = spawn(command, [...args], {
    env: {
      ...process.env,
      PORT: port,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
      REDIS_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const state: { exited: boolean; ended?: { code: number | null; signal: NodeJS.Signals | null; at: number } } = { exited: false };
  const exit = new Promise<void>((r) =>
    child.once('exit', (code, signal) => {
      state.ended = { code, signal, at: Date.now() };
      r();
    }),
  );
  void exit.then(() => (state.exited = true));
  const cleanUp = async () => {
    // A SIGKILL gives the service no chance to stop its dev server: stop it here, not in a later test.
    for (const server of devServersOn(join(dataDir, 'temporal.sqlite'))) await stopProcess(server.pid);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const stop = async () => {
    if (!state.exited) {
      child.kill('SIGTERM');
      const inTime = await Promise.race([exit.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
      if (!inTime) child.kill('SIGKILL');
    }
    await cleanUp();
  };
  const terminate = async (waitMs: number): Promise<Ended | undefined> => {
    const signalledAt = Date.now();
    child.kill('SIGTERM');
    const inTime = await Promise.race([exit.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), waitMs))]);
    if (!inTime || !state.ended) return undefined;
    return { code: state.ended.code, signal: state.ended.signal, ms: state.ended.at - signalledAt };
  };
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (state.exited) break;
    const url = runtime === 'deno' ? `http://127.0.0.1:${port}` : listeningUrl(output);
    const ok =
      url !== undefined &&
      (await fetch(`${url}/api/v1/prod/health`).then(
        (r) => r.ok,
        () => false,
      ));
    if (url && ok) return { url, dataDir, pid: child.pid ?? 0, output: () => output, stop, terminate };
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`${runtime} service did not answer /health:\n${output}`);
}
