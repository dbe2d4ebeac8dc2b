// Runs the test tiers with node's test runner: `node scripts/test.mjs [unit|int|e2e|cluster]...`.
// Files are test/<tier>/**/*.<tier>.test.ts. Named tiers run in order, one file at a time.
// With no tier named (CI, `npm test`) every tier runs, in two streams side by side (TEST_STREAMS=1
// for one): the in-process suites (unit, int) in one, and in the other the suites that drive
// started services from outside (e2e, cluster: the service as three instances and a worker
// behind a load balancer; and the SDKs' suites, which start a service and run Python, Deno and
// packed tarballs against it). The second mostly waits on the processes it starts, so on two
// cores the streams overlap instead of queueing. The second stream's report follows the first's.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TIERS = ['unit', 'int', 'e2e', 'cluster'];
/** int files run in the outside stream: they start a service and drive it with another runtime. */
const OUTSIDE_INT = /(^|\/)(python-sdk|sdk|sdk-packaging)\.int\.test\.ts$/;

function files(dir, suffix) {
  let found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found = found.concat(files(path, suffix));
    else if (name.endsWith(suffix)) found.push(path);
  }
  return found.sort();
}

const ofTier = (tier) => files(join('test', tier), `.${tier}.test.ts`);

/** Runs the files in one node --test process; resolves with its exit status. */
function run(selected, stdio) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...selected], {
      stdio: ['ignore', stdio, stdio],
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const named = process.argv.slice(2);
let streams;
if (named.length > 0 || process.env.TEST_STREAMS === '1') {
  streams = [(named.length > 0 ? named : TIERS).flatMap(ofTier)];
} else {
  const inProcess = [...ofTier('unit'), ...ofTier('int').filter((f) => !OUTSIDE_INT.test(f))];
  const outside = [...ofTier('int').filter((f) => OUTSIDE_INT.test(f)), ...ofTier('e2e'), ...ofTier('cluster')];
  streams = [inProcess, outside];
}
if (streams.flat().length === 0) {
  console.error(`no test files for tiers: ${named.join(', ')}`);
  process.exit(1);
}

if (streams.length === 1) process.exit(await run(streams[0], 'inherit'));

const dir = mkdtempSync(join(tmpdir(), 'court-records-tests-'));
const logPath = join(dir, 'outside.log');
const log = createWriteStream(logPath);
await new Promise((resolve) => log.on('open', resolve));
console.log(`== two test streams: ${String(streams[0].length)} files here, ${String(streams[1].length)} files alongside (reported after)`);
const [first, second] = await Promise.all([run(streams[0], 'inherit'), run(streams[1], log)]);
await new Promise((resolve) => log.end(resolve));
console.log(`\n== the second stream (${streams[1].join(' ')}):`);
process.stdout.write(readFileSync(logPath));
rmSync(dir, { recursive: true, force: true });
console.log(`\n== streams: in-process exit ${String(first)}, outside exit ${String(second)}`);
process.exit(first === 0 && second === 0 ? 0 : 1);
