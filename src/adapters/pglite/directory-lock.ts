/**
 * One process at a time per PGlite directory. PGlite is Postgres in WASM inside one
 * process: it keeps its pages in its own memory and knows nothing of other processes, so
 * two processes on one directory overwrite each other's writes (a CLI ingest beside the
 * running service is lost when the service checkpoints). Opening a directory therefore
 * takes a lock file beside it, `<dir>.lock`, a JSON line naming the owner (pid, host,
 * start time, what it is) and a token unique to this acquisition; every other open,
 * in this process or another, finds it and refuses.
 *
 * A lock file is published whole: written under a private name, then link(2)ed to its
 * own, which fails when the name exists just as open(O_EXCL) does, so no reader sees it
 * half written. A lock whose owner has died (a crash, kill -9) is stale and is taken over.
 * Only the process that creates `<lock>.takeover-<its token>` may delete a stale lock:
 * that name is one per stale lock and exclusive, so of several processes finding the same
 * stale lock one removes it, and none removes the lock a winner took meanwhile. A lock
 * held on another host is never taken over, since its owner cannot be checked from here.
 */
import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';

const LockOwnerSchema = z.object({
  pid: z.number().int().positive(),
  hostname: z.string(),
  /** When the owning process started (ISO 8601), for the people reading a refusal. */
  startedAt: z.string(),
  /** What holds the directory: "the service", "court-records ingest", ... */
  holder: z.string(),
  /** Boot id and start tick of the owning process (Linux), so a reused pid is not mistaken for it; null elsewhere. */
  process: z.string().nullable(),
  /** Unique per published file: tells this lock from a later one at the same path. */
  token: z.uuid(),
});

export type LockOwner = z.infer<typeof LockOwnerSchema>;

export interface DirectoryLock {
  readonly owner: LockOwner;
  /** Deletes the lock file if it is still this lock's; calling it again does nothing. */
  release(): void;
}

/** Tries while another process is taking a stale lock over: that takes microseconds unless it is descheduled. */
const ATTEMPTS = 50;
const RETRY_MS = 20;

const UNREADABLE = Symbol('unreadable');

export class DirectoryLockedError extends Error {
  override readonly name = 'DirectoryLockedError';

  constructor(
    readonly directory: string,
    readonly file: string,
    readonly owner: LockOwner | null,
  ) {
    super(
      `${describe(owner, file)} holds ${directory}: PGlite serves one process at a time; stop that process first, or use PostgreSQL (DATABASE_URL), which serves several`,
    );
  }
}

function describe(owner: LockOwner | null, file: string): string {
  if (owner === null) return `another process (its lock file ${file} is unreadable: delete it if nothing uses the directory)`;
  const foreign =
    owner.hostname === hostname() ? '' : ` on ${owner.hostname}, which cannot be checked from here: delete ${file} once it has stopped`;
  return `${owner.holder} (pid ${owner.pid}, started ${owner.startedAt}${foreign})`;
}

/** `<boot id>/<start tick>` of a live process, read from /proc; undefined where /proc does not tell. */
function processStart(pid: number | 'self'): string | undefined {
  try {
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // Field 22 is the start time; count after the command name, which may hold spaces and parentheses.
    const startTick = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return startTick === undefined ? undefined : `${bootId}/${startTick}`;
  } catch {
    return undefined;
  }
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

/** Whether the owner may still be running: only a process provably gone from this host is not. */
function ownerAlive(owner: LockOwner): boolean {
  if (owner.hostname !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the pid exists but belongs to another user.
    if (errorCode(error) === 'ESRCH') return false;
  }
  // The pid is in use, perhaps by a later process (a restarted container numbers its processes alike).
  const started = processStart(owner.pid);
  return owner.process === null || started === undefined || started === owner.process;
}

function newOwner(holder: string): LockOwner {
  return {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    holder,
    process: processStart('self') ?? null,
    token: randomUUID(),
  };
}

/** Creates `path` holding `owner`, unless the name exists. */
function publish(path: string, owner: LockOwner): boolean {
  const draft = `${path}.${owner.token}.draft`;
  writeFileSync(draft, `${JSON.stringify(owner)}\n`, { flag: 'wx' });
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(draft);
  }
}

/** The owner a lock file names; null when there is no file. */
function readOwner(path: string): LockOwner | null | typeof UNREADABLE {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
  try {
    const parsed = LockOwnerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : UNREADABLE;
  } catch {
    return UNREADABLE;
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

/**
 * Deletes `file` if it still holds the stale lock `stale`, under the claim for exactly that
 * lock. Returns false when another live process holds the claim (it is doing the same).
 */
function removeStale(file: string, stale: LockOwner, holder: string): boolean {
  const claim = `${file}.takeover-${stale.token}`;
  const claimant = newOwner(holder);
  if (!publish(claim, claimant)) {
    const other = readOwner(claim);
    if (other === null) return true;
    if (other === UNREADABLE || ownerAlive(other)) return false;
    // The other claimant died mid-takeover: its claim is stale in turn and goes the same way.
    return removeStale(claim, other, holder);
  }
  try {
    const current = readOwner(file);
    if (current !== null && current !== UNREADABLE && current.token === stale.token) unlinkSync(file);
  } finally {
    unlinkSync(claim);
  }
  return true;
}

/** Locks this process holds; any still held when it exits are released then. */
const held = new Set<() => void>();
let releasingOnExit = false;

function hold(file: string, owner: LockOwner): DirectoryLock {
  if (!releasingOnExit) {
    // A process that exits without closing (process.exit, an uncaught error) leaves no lock
    // behind; one killed outright does, and the next open takes that stale lock over.
    process.once('exit', () => held.forEach((release) => release()));
    releasingOnExit = true;
  }
  const release = (): void => {
    if (!held.delete(release)) return;
    const current = readOwner(file);
    if (current !== null && current !== UNREADABLE && current.token === owner.token) unlinkIfPresent(file);
  };
  held.add(release);
  return { owner, release };
}

/**
 * Locks `directory` for this process, as `holder`; throws DirectoryLockedError while any
 * other open (in this process or another) holds it.
 */
export async function lockDirectory(directory: string, holder: string): Promise<DirectoryLock> {
  const file = `${directory}.lock`;
  const owner = newOwner(holder);
  let current: LockOwner | null | typeof UNREADABLE = null;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (publish(file, owner)) return hold(file, owner);
    current = readOwner(file);
    // null: released since we tried.
    if (current === null) continue;
    if (current === UNREADABLE || ownerAlive(current)) break;
    if (!removeStale(file, current, holder)) await delay(RETRY_MS);
  }
  throw new DirectoryLockedError(directory, file, current === UNREADABLE ? null : current);
}
