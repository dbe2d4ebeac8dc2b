/**
 * Guards postgres.js (3.4.9, the latest release) against a connection whose server side
 * died: its writer then calls `write` on a socket it has already dropped, from a
 * setImmediate, and the TypeError takes the whole process down (porsager/postgres#1154,
 * #1208; fixes proposed in #1168, #1209, none released). A database restart or a killed
 * backend must fail the queries on that connection, not the service. The guard makes a
 * write on a closed connection fail its queries with CONNECTION_CLOSED, which callers
 * already handle. The other repairs below (each with its reason) keep a connection whose
 * query failed, or whose server side ended, from hanging or corrupting later queries.
 * Run on install (package.json "postinstall"); idempotent; fails loudly when the library
 * no longer has the code it guards, so an upgrade is looked at.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const MARK = '/* court-records: closed-socket guard v3 */';
const OLDER_MARK = 'court-records: closed-socket guard';
const WRITE = 'if (fn || chunk.length >= 1024)\n      return nextWrite(fn)';
const GUARDED_WRITE = `if (fn || chunk.length >= 1024 || !socket) ${MARK}\n      return nextWrite(fn)`;
const NEXT = 'function nextWrite(fn) {\n    const x = socket.write(chunk, fn)';
const GUARDED_NEXT = `function nextWrite(fn) {
    if (!socket) { ${MARK}
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return true
    }
    const x = socket.write(chunk, fn)`;

// Closing cleared the pending write's timer but left it set, so no write was ever scheduled again on that connection.
// It also kept the ended query's partial state: the next query on the reconnected
// connection failed with the old error or got its rows after holes where the old rows were.
const CLOSED = "clearImmediate(nextWriteTimer)\n    socket.removeListener('data', data)";
const GUARDED_CLOSED = `clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null ${MARK}\n    const ended = errorResponse\n    rows = 0, result = new Result(), results = errorResponse = null\n    socket.removeListener('data', data)`;

// The package exports no package.json; its CommonJS entry is cjs/src/index.js.
// A socket error rejected the queries in flight then; any sent between it and the close (a ROLLBACK) waited for ever.
const ORPHANS = "!hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))";
const GUARDED_ORPHANS = `if (query || sent.length) error(ended || Errors.connection('CONNECTION_CLOSED', options, socket)) ${MARK}`;

// Releasing a reserved connection the server closed put it back in the open pool, socket-less: every later query on it failed or hung.
const RELEASE = 'c.reserved = null\n      onopen(c)';
const GUARDED_RELEASE = `c.reserved = null\n      c.onclose = null ${MARK}\n      c.queue === closed || c.queue === connecting || onopen(c)`;

// After the server closed a reserved connection, its handle kept sending queries to the connection object the pool was already reconnecting for someone else.
const RESERVED = 'function handler(q) {\n      c.queue === full';
const GUARDED_RESERVED = `function handler(q) {\n      if (c.reserved === null) return q.reject(Errors.connection('CONNECTION_CLOSED', options)) ${MARK}\n      c.queue === full`;

// Queries a reserved handle queued behind a full pipeline were never sent nor failed when the connection closed.
const QUEUED = 'c.reserved.release = true';
const GUARDED_QUEUED = `c.reserved.release = true\n    c.onclose = (e) => { while (queue.length) queue.shift().reject(e) } ${MARK}`;

// A connection that closed while a reserve() waited reconnected with that reserve as its first query, which a fresh connection never hands over: the reserve waited for ever. Left queued (as reserve() itself does), it gets the connection once open.
const HANDOVER = 'queries.length && connect(c, queries.shift())';
const GUARDED_HANDOVER = `queries.length && connect(c, ((q) => (q.reserve && queries.push(q), q))(queries.shift())) ${MARK}`;

// A query the server failed after sending some rows left the row counter where it was, so
// the next query's rows came after that many holes (porsager/postgres#1119, #1181; fix proposed in #1120).
const READY = 'query = results = errorResponse = null\n    result = new Result()';
const GUARDED_READY = `query = results = errorResponse = null\n    result = new Result(), rows = 0 ${MARK}`;

// A connection ended while it fetched the array types (its first query after connecting for
// a reserve()) rejected a promise nobody awaits: an unhandled rejection, which ends a Node
// process. Its failure is the connection's, which the close (or the next query) handles.
const TYPES = 'return fetchArrayTypes()';
const GUARDED_TYPES = `return fetchArrayTypes().catch(() => undefined) ${MARK}`;

const root = join(dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');
const PATCHES = {
  'connection.js': [
    [WRITE, GUARDED_WRITE],
    [NEXT, GUARDED_NEXT],
    [CLOSED, GUARDED_CLOSED],
    [ORPHANS, GUARDED_ORPHANS],
    [READY, GUARDED_READY],
    [TYPES, GUARDED_TYPES],
  ],
  'index.js': [
    [RELEASE, GUARDED_RELEASE],
    [RESERVED, GUARDED_RESERVED],
    [QUEUED, GUARDED_QUEUED],
    [HANDOVER, GUARDED_HANDOVER],
  ],
};

for (const dir of ['src', 'cjs/src']) {
  for (const [file, patches] of Object.entries(PATCHES)) {
    const path = join(root, dir, file);
    const source = readFileSync(path, 'utf8');
    if (source.includes(MARK)) continue;
    if (source.includes(OLDER_MARK)) throw new Error(`${path}: patched by an older version of this script; reinstall (npm ci)`);
    if (!patches.every(([code]) => source.includes(code))) throw new Error(`${path}: the code the closed-socket guard patches has changed`);
    writeFileSync(
      path,
      patches.reduce((text, [code, guarded]) => text.replace(code, guarded), source),
    );
  }
}
