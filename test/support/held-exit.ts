/**
 * A process held the ways a stopping service can be, for the exit guard's test:
 * `main-thread`: the guard is armed for `ms`, then the main thread blocks for good (a long
 * synchronous call); `native-worker` and `native-worker-unguarded`: the embedded ClickHouse's
 * worker thread runs a query for minutes, and the process exits, through the guard or with
 * a bare `process.exit`, its data in the folder given. Prints "exiting" just before it exits.
 */
import { openChdbStore } from '../../src/adapters/clickhouse/chdb-store.ts';
import { exitGuard } from '../../src/composition/exit-guard.ts';

const [mode = '', ms = '1000', dataDir = ''] = process.argv.slice(2);
if (mode === 'main-thread') {
  exitGuard().killAfter(Number(ms), 'held main thread');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
} else {
  const store = await openChdbStore(dataDir);
  store.query('SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 3').catch(() => undefined);
  await new Promise((r) => setTimeout(r, 500));
  process.stdout.write('exiting\n');
  if (mode === 'native-worker') exitGuard().exit(0);
  else process.exit(0);
}
