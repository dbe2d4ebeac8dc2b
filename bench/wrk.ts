/**
 * Drives a URL with wrk (a C load generator, Debian package `wrk`) and parses its report:
 * a closed loop of `connections` keep-alive clients on `threads` threads, outside any Node
 * event loop, so the server measured is the only JavaScript running. Headers go on the
 * command line; a Lua script can vary requests (e.g. a key per account).
 */
import { spawn } from 'node:child_process';
import { median } from './stats.ts';

export const WRK_PATH = process.env.WRK_PATH ?? '/usr/bin/wrk';

export interface WrkOptions {
  readonly threads?: number;
  readonly connections?: number;
  readonly durationSeconds?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A wrk Lua script (its path), for requests that vary; see `man wrk`. */
  readonly script?: string;
}

export interface WrkResult {
  readonly requests: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers outside 2xx and 3xx, plus connect, read, write and timeout errors. */
  readonly failures: number;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function latencyMs(report: string, percentile: string): number {
  const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(report);
  if (!match) throw new Error(`wrk report without a ${percentile}% latency:\n${report}`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** Parses the text wrk prints with --latency. */
export function parseWrk(report: string): WrkResult {
  const requests = /^\s*(\d+) requests in/m.exec(report);
  const perSecond = /^Requests\/sec:\s+([\d.]+)/m.exec(report);
  if (!requests || !perSecond) throw new Error(`unreadable wrk report:\n${report}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(report);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(report);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requests: Number(requests[1]),
    perSecond: Number(perSecond[1]),
    p50Ms: latencyMs(report, '50'),
    p99Ms: latencyMs(report, '99'),
    failures: Number(non2xx?.[1] ?? 0) + socketErrors,
  };
}

export async function wrk(url: string, options: WrkOptions = {}): Promise<WrkResult> {
  const args = [
    `-t${String(options.threads ?? 1)}`,
    `-c${String(options.connections ?? 32)}`,
    `-d${String(options.durationSeconds ?? 5)}s`,
    '--latency',
    ...Object.entries(options.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    ...(options.script ? ['-s', options.script] : []),
    url,
  ];
  const child = spawn(WRK_PATH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`wrk exited with ${String(code)}: ${err || out}`);
  return parseWrk(out);
}

/** Several runs as one figure: the median of each rate and latency, the sums of counts. */
export function medianWrk(runs: readonly WrkResult[]): WrkResult {
  return {
    requests: runs.reduce((sum, r) => sum + r.requests, 0),
    perSecond: median(runs.map((r) => r.perSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    failures: runs.reduce((sum, r) => sum + r.failures, 0),
  };
}
