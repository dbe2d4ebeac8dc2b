/**
 * The PGlite directory lock on a real file system: a second open (in this process or
 * another) is refused and names the owner; a lock left by a dead process, or by an earlier
 * process that had this pid, is taken over; a lock from another host or one that cannot be
 * read never is; and of several processes racing for one directory exactly one wins, even
 * when all of them find the same stale lock. And through openPglite: held from open to close.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, beforeEach, describe, it } from 'node:test';
import { DirectoryLockedError, lockDirectory, type LockOwner } from '../../src/adapters/pglite/directory-lock.ts';
import { openPglite } from '../../src/db/open.ts';

const root = mkdtempSync(join(tmpdir(), 'court-records-lock-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A pid that was just in use and is no longer. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

function owner(fields: Partial<LockOwner>): LockOwner {
  return {
    pid: process.pid,
    hostname: hostname(),
    startedAt: '2026-11-26T09:00:00.000Z',
    holder: 'the service',
    process: null,
    token: randomUUID(),
    ...fields,
  };
}

function readLock(directory: string): LockOwner {
  return JSON.parse(readFileSync(`${directory}.lock`, 'utf8')) as LockOwner;
}

async function refusal(directory: string): Promise<DirectoryLockedError> {
  const error = await lockDirectory(directory, 'court-records migrate').then(
    () => assert.fail('the lock was granted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof DirectoryLockedError, String(error));
  return error;
}

describe('PGlite directory lock', () => {
  let directory: string;
  beforeEach(() => {
    directory = join(mkdtempSync(join(root, 'data-')), 'pglite');
  });

  it('refuses a second open in the same process, naming the holder, until the first releases', async () => {
    const lock = await lockDirectory(directory, 'the service');
    assert.deepEqual(readLock(directory), lock.owner);
    const error = await refusal(directory);
    assert.equal(error.owner?.pid, process.pid);
    assert.equal(
      error.message,
      `the service (pid ${process.pid}, started ${lock.owner.startedAt}) holds ${directory}: PGlite serves one process at a time; ` +
        'stop that process first, or use PostgreSQL (DATABASE_URL), which serves several',
    );
    lock.release();
    lock.release();
    assert.equal(existsSync(`${directory}.lock`), false);
    (await lockDirectory(directory, 'court-records ingest')).release();
  });

  it('takes over a lock whose process has died, leaving no claim behind', async () => {
    writeFileSync(`${directory}.lock`, JSON.stringify(owner({ pid: await deadPid() })));
    const lock = await lockDirectory(directory, 'court-records ingest');
    assert.equal(readLock(directory).token, lock.owner.token);
    assert.deepEqual(readdirSync(join(directory, '..')), ['pglite.lock']);
    lock.release();
  });

  it('takes over a lock whose pid now belongs to a later process', { skip: !existsSync('/proc/self/stat') && 'no /proc' }, async () => {
    // This process's own pid, recorded by an earlier process (a restarted container numbers its processes alike).
    writeFileSync(`${directory}.lock`, JSON.stringify(owner({ process: 'an-earlier-boot/12345' })));
    const lock = await lockDirectory(directory, 'the service');
    assert.equal(readLock(directory).token, lock.owner.token);
    lock.release();
  });

  it('clears the claim of a process that died while taking a stale lock over', async () => {
    const stale = owner({ pid: await deadPid() });
    writeFileSync(`${directory}.lock`, JSON.stringify(stale));
    writeFileSync(`${directory}.lock.takeover-${stale.token}`, JSON.stringify(owner({ pid: await deadPid() })));
    const lock = await lockDirectory(directory, 'court-records migrate');
    assert.equal(readLock(directory).token, lock.owner.token);
    assert.deepEqual(readdirSync(join(directory, '..')), ['pglite.lock']);
    lock.release();
  });

  it('never takes over a lock held on another host, and says how to clear it', async () => {
    writeFileSync(`${directory}.lock`, JSON.stringify(owner({ hostname: 'elsewhere.example', pid: await deadPid() })));
    const error = await refusal(directory);
    assert.equal(error.owner?.hostname, 'elsewhere.example');
    assert.match(error.message, /on elsewhere\.example, which cannot be checked from here: delete .*pglite\.lock once it has stopped/);
  });

  it('never takes over a lock file it cannot read', async () => {
    writeFileSync(`${directory}.lock`, '');
    const error = await refusal(directory);
    assert.equal(error.owner, null);
    assert.match(error.message, /^another process \(its lock file .*pglite\.lock is unreadable: delete it if nothing uses the directory\)/);
  });

  it('holds an opened PGlite directory from open to close', async () => {
    const dataDir = join(directory, '..');
    const first = await openPglite(dataDir, 'the service');
    await assert.rejects(openPglite(dataDir, 'court-records ingest'), DirectoryLockedError);
    assert.equal(readLock(directory).holder, 'the service');
    await first.close();
    assert.equal(existsSync(`${directory}.lock`), false);
    const second = await openPglite(dataDir, 'court-records ingest');
    await second.close();
  });
});

describe('PGlite directory lock under contention', () => {
  const CONTENDERS = 6;
  const ROUNDS = 24;
  const ROUND_MS = 100;
  const moduleUrl = new URL('../../src/adapters/pglite/directory-lock.ts', import.meta.url).href;

  /**
   * A process that, given a start time on stdin, tries the lock of each directory at its
   * round's time and prints one line per round, "won" or "refused <owner pid>"; it holds
   * what it won until stdin closes, then exits (which releases them).
   */
  function contender(directories: readonly string[]): { child: ChildProcessWithoutNullStreams; lines: AsyncIterator<string> } {
    const script = `
      const { lockDirectory } = await import(${JSON.stringify(moduleUrl)});
      const directories = ${JSON.stringify(directories)};
      const sleeper = new Int32Array(new SharedArrayBuffer(4));
      process.stdin.once('data', async (chunk) => {
        const start = Number(String(chunk));
        for (const [round, directory] of directories.entries()) {
          Atomics.wait(sleeper, 0, 0, Math.max(0, start + round * ${ROUND_MS} - Date.now()));
          try {
            await lockDirectory(directory, 'contender');
            process.stdout.write('won\\n');
          } catch (error) {
            process.stdout.write('refused ' + (error.owner?.pid ?? 'unknown') + '\\n');
          }
        }
      });
      process.stdin.on('end', () => process.exit(0));
      process.stdout.write('ready\\n');
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: 'pipe' });
    return { child, lines: createInterface({ input: child.stdout })[Symbol.asyncIterator]() };
  }

  it(`leaves exactly one owner in each of ${ROUNDS} races of ${CONTENDERS} processes, half for a stale lock; exit releases it`, async () => {
    const directories = await Promise.all(
      Array.from({ length: ROUNDS }, async (_, round) => {
        const directory = join(mkdtempSync(join(root, 'race-')), 'pglite');
        if (round % 2 === 1) writeFileSync(`${directory}.lock`, JSON.stringify(owner({ pid: await deadPid() })));
        return directory;
      }),
    );
    const contenders = Array.from({ length: CONTENDERS }, () => contender(directories));
    try {
      for (const c of contenders) assert.equal((await c.lines.next()).value, 'ready');
      const start = Date.now() + 200;
      for (const c of contenders) c.child.stdin.write(`${start}\n`);
      const outcomes = await Promise.all(
        contenders.map(async (c) => {
          const lines: string[] = [];
          for (let round = 0; round < ROUNDS; round++) lines.push(String((await c.lines.next()).value));
          return { pid: c.child.pid!, lines };
        }),
      );
      directories.forEach((directory, round) => {
        const winners = outcomes.filter((o) => o.lines[round] === 'won').map((o) => o.pid);
        const refusals = outcomes.filter((o) => o.lines[round] !== 'won').map((o) => o.lines[round]);
        assert.equal(winners.length, 1, `round ${round}: winners ${winners.join(', ')}; ${refusals.join(', ')}`);
        assert.equal(readLock(directory).pid, winners[0]);
        assert.deepEqual(
          refusals,
          Array.from({ length: CONTENDERS - 1 }, () => `refused ${winners[0]!}`),
        );
      });
    } finally {
      await Promise.all(
        contenders.map(async ({ child }) => {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.stdin.end();
          await exited;
        }),
      );
    }
    for (const directory of directories) {
      assert.deepEqual(readdirSync(join(directory, '..')), [], 'the winner released its lock on exit; no claim or draft is left');
    }
  });
});
