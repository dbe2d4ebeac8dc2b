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

export async function startService(runtime: keyof typeof COMMANDS, env: Record<string, string>): Promise<RunningService> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `court-records-${runtime}-`));
  const [command, args] = COMMANDS[runtime];
  let output = '';
  const child: ChildProcess = spawn(command, [...args], {
    env: {
      ...process.env,
      PORT: String(port),
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
  const url = `http://127.0.0.1:${port}`;
  const state = { exited: false };
  const exit = new Promise<void>((r) => child.once('exit', () => r()));
  void exit.then(() => (state.exited = true));
  const stop = async () => {
    if (!state.exited) {
      child.kill('SIGTERM');
      const inTime = await Promise.race([exit.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
      if (!inTime) child.kill('SIGKILL');
    }
    // A SIGKILL gives the service no chance to stop its dev server: stop it here, not in a later test.
    for (const server of devServersOn(join(dataDir, 'temporal.sqlite'))) await stopProcess(server.pid);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (state.exited) break;
    const ok = await fetch(`${url}/api/v1/prod/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, dataDir, output: () => output, stop };
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`${runtime} service did not answer /health:\n${output}`);
}
