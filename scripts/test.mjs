// Runs the test tiers with node's test runner: `node scripts/test.mjs [unit|int|e2e|cluster]...`.
// Files are test/<tier>/**/*.<tier>.test.ts; tiers run in order unit, int, e2e, cluster (the service as
// three instances and a worker apart behind a load balancer: minutes, so it stays one file).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const tiers = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['unit', 'int', 'e2e', 'cluster'];

function files(dir, suffix) {
  let found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found = found.concat(files(path, suffix));
    else if (name.endsWith(suffix)) found.push(path);
  }
  return found.sort();
}

const selected = tiers.flatMap((tier) => files(join('test', tier), `.${tier}.test.ts`));
if (selected.length === 0) {
  console.error(`no test files for tiers: ${tiers.join(', ')}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...selected], {
  stdio: 'inherit',
  env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
});
process.exit(result.status ?? 1);
