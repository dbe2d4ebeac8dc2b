/**
 * API_PROCESSES=2 on PostgreSQL: the primary starts two API processes sharing one port.
 * Both answer; a process killed (SIGKILL) leaves the service answering from the other and
 * is started again; SIGTERM on the primary stops every API process, and none is left.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { processRunning } from '../../src/adapters/temporal/dev-server-ports.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { startService, type StartedService } from '../support/service-process.ts';

const postgres = databases.find((d) => d.name === 'postgres');

/** The pids of `parent`'s children running the service's entry point. */
function apiProcessesOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const ppid = Number(
          readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
            .split(') ')[1]!
            .split(' ')[1],
        );
        return ppid === parent && readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').includes('src/main.ts');
      } catch {
        return false;
      }
    });
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('API_PROCESSES=2 on PostgreSQL', { skip: postgres === undefined ? 'needs TEST_DATABASE_URL' : false }, () => {
  let database: TestDatabase;
  let service: StartedService;

  before(async () => {
    database = await postgres!.open();
    service = await startService('node', {
      API_PROCESSES: '2',
      DATABASE_URL: database.url!,
      KEY_HASH_SECRET: 'api-processes-key-hash-secret-0123456789',
      AUTO_INGEST: 'false',
      // Nothing here runs a workflow; an address nobody answers keeps a dev server off the cores.
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      TEMPORAL_CODEC_KEYS: `e2e:${randomBytes(32).toString('base64')}`,
    });
  });

  after(async () => {
    await service.stop();
    await database.close();
  });

  // A new connection per request: a kept-alive one to the killed process would reset.
  const health = () =>
    new Promise<number | undefined>((resolve, reject) => {
      get(`${service.url}/api/v1/prod/health`, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).once('error', reject);
    });

  it('answers from both processes, survives losing one, and stops every one with the primary', async () => {
    // Each API process logs "listening" once composed; a process accepts connections before (as one process does).
    const composed = (n: number) =>
      service
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"listening"')).length >= n
        ? true
        : undefined;
    await until('two API processes composed', () => composed(2));
    const first = apiProcessesOf(service.pid);
    assert.equal(first.length, 2);
    assert.deepEqual(await Promise.all(Array.from({ length: 20 }, health)), Array(20).fill(200));

    process.kill(first[0]!, 'SIGKILL');
    await until('the killed process gone', () => (processRunning(first[0]!) ? undefined : true));
    assert.deepEqual(await Promise.all(Array.from({ length: 20 }, health)), Array(20).fill(200), 'the other process answers');
    const restarted = await until('a process started in its place', () => {
      const pids = apiProcessesOf(service.pid);
      return pids.length === 2 && !pids.includes(first[0]!) ? pids : undefined;
    });
    assert.ok(restarted.includes(first[1]!));
    await until('the new process composed', () => composed(3), 120_000);
    assert.deepEqual(await Promise.all(Array.from({ length: 20 }, health)), Array(20).fill(200));

    const ended = await service.terminate(30_000);
    assert.ok(ended, 'the primary exits within its bound');
    assert.equal(ended.code, 0);
    for (const pid of restarted) assert.equal(processRunning(pid), false, `API process ${String(pid)} left running`);
  });
});
