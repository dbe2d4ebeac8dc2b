/**
 * The embedded dev server is the service's own. A second service on the same machine with
 * the default ports used to find them taken, fail to bind and connect to the first one's
 * engine: its workflows then ran in the other database, taken by the other's workers, and
 * its analyses were never stored. Here a second runtime on a taken frontend and UI port
 * gets a server of its own on free ports, whose workflows the first never sees. A dev
 * server left running on the same database file by a killed service is stopped, and one
 * owned by a live process is refused rather than shared. Real CLI dev servers throughout.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freeLoopbackPort, portOpen, processRunning } from '../../src/adapters/temporal/dev-server-ports.ts';
import { openTemporal, type TemporalRuntime } from '../../src/adapters/temporal/temporal-runtime.ts';
import { NO_TEMPORAL_CLI, temporalCli, testDataConverter } from '../support/temporal.ts';

const found = temporalCli();
const cli = found?.path;
const skip = cli ? false : NO_TEMPORAL_CLI;

type Notice = { info: Record<string, unknown>; message: string };

async function open(dbFilename: string | undefined, port: number, uiPort: number, notices: Notice[]): Promise<TemporalRuntime> {
  const { dataConverter } = await testDataConverter();
  return openTemporal({
    address: undefined,
    namespace: 'default',
    dataConverter,
    devServer: {
      dbFilename,
      cli: found ?? { path: undefined, source: 'download' },
      port,
      uiPort,
      codecEndpoint: undefined,
      onNotice: (info, message) => notices.push({ info, message }),
    },
  });
}

function portOf(address: string): number {
  return Number(address.slice(address.lastIndexOf(':') + 1));
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    assert.ok(Date.now() < deadline, `${what} within ${String(timeoutMs)} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The CLI's dev server, as a killed service leaves it: its parent gone, it is re-parented. */
function orphanedDevServer(dbFilename: string, port: number): number {
  const started = spawnSync(
    'sh',
    [
      '-c',
      '"$0" server start-dev --headless --ip 127.0.0.1 --port "$1" --db-filename "$2" >/dev/null 2>&1 & echo $!',
      cli!,
      String(port),
      dbFilename,
    ],
    { encoding: 'utf8' },
  );
  return Number(started.stdout.trim());
}

describe('the embedded dev server is this service’s own', { skip, timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'dev-server-ports-'));
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts on free ports when another dev server holds the configured ones, and shares none of its workflows', async () => {
    const [port, uiPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    const firstNotices: Notice[] = [];
    const first = await open(join(dir, 'first.sqlite'), port, uiPort, firstNotices);
    closers.push(() => first.close());
    assert.equal(portOf(first.address), port);
    assert.deepEqual(firstNotices, []);

    const notices: Notice[] = [];
    const second = await open(join(dir, 'second.sqlite'), port, uiPort, notices);
    closers.push(() => second.close());
    assert.notEqual(portOf(second.address), port, 'the second runtime did not connect to the first one’s server');
    assert.ok(second.uiUrl && first.uiUrl && second.uiUrl !== first.uiUrl, `${String(second.uiUrl)} vs ${String(first.uiUrl)}`);
    assert.deepEqual(
      notices.map((n) => [n.info.wanted, n.info.using]),
      [
        [port, portOf(second.address)],
        [uiPort, Number(new URL(second.uiUrl).port)],
      ],
    );

    // A workflow started on the second engine does not exist on the first.
    const workflowId = `ports-${Date.now()}`;
    await second.client.workflow.start('analyseCase', { taskQueue: 'nobody-polls', workflowId, args: [] });
    assert.equal((await second.client.workflow.getHandle(workflowId).describe()).workflowId, workflowId);
    await assert.rejects(first.client.workflow.getHandle(workflowId).describe(), /not found/i);
  });

  it('stops a dev server a killed service left on its database file, then starts its own on the freed port', async () => {
    const dbFilename = join(dir, 'orphaned.sqlite');
    const port = await freeLoopbackPort();
    const pid = orphanedDevServer(dbFilename, port);
    closers.push(async () => {
      if (processRunning(pid)) process.kill(pid, 'SIGKILL');
    });
    await until('the orphaned dev server listens', () => portOpen(port));

    const notices: Notice[] = [];
    const runtime = await open(dbFilename, port, await freeLoopbackPort(), notices);
    closers.push(() => runtime.close());
    assert.equal(processRunning(pid), false, 'the orphaned server was stopped');
    assert.deepEqual(
      notices.map((n) => n.info.pid),
      [pid],
    );
    assert.equal(portOf(runtime.address), port, 'its port, freed, is used');
    await runtime.client.workflowService.getSystemInfo({});
  });

  it('refuses a database file a live process’s dev server holds instead of sharing it', async () => {
    const dbFilename = join(dir, 'held.sqlite');
    const port = await freeLoopbackPort();
    const holder = spawn(
      cli!,
      ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--db-filename', dbFilename],
      {
        stdio: 'ignore',
      },
    );
    closers.push(async () => void holder.kill('SIGKILL'));
    await until('the held dev server listens', () => portOpen(port));
    await assert.rejects(open(dbFilename, await freeLoopbackPort(), await freeLoopbackPort(), []), (error: Error) => {
      assert.match(error.message, new RegExp(`pid ${String(holder.pid)}\\) uses this DATA_DIR's workflow histories`));
      return true;
    });
    assert.equal(holder.exitCode, null, 'the live owner’s server was left running');
  });
});
