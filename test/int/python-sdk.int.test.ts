/**
 * The Python SDK (clients/python) against the real service: the service started as `npm start`
 * starts it (embedded defaults, first-start ingest, its own workflow engine), two accounts made
 * by `court-records dev seed` (one funded, one holding a single credit), then in a virtualenv
 * with the package installed: its generated models match the document the service serves, its
 * pytest suite passes against the service with nothing skipped (the live tests included), every
 * python block of its README and of the repository's runs, and `python -m build` makes a wheel
 * and an sdist.
 *
 * The virtualenv is kept in clients/python/.venv-ci/<hash of pyproject.toml and the Python
 * version> (ignored by git), so a second run installs nothing; a fresh clone builds it once.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { corpusDir } from '../support/corpus.ts';
import { pythonSdkVectors } from '../support/python-sdk-vectors.ts';
import { runCommand, startService, type RunningService } from '../support/service-process.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PACKAGE = join(ROOT, 'clients', 'python');
const VENVS = join(PACKAGE, '.venv-ci');
const PYTHON = process.env.PYTHON ?? 'python3';

async function run(command: string, args: readonly string[], env: Record<string, string> = {}, cwd = PACKAGE): Promise<string> {
  const done = await runCommand(command, args, env, cwd);
  assert.equal(done.code, 0, `${command} ${args.join(' ')}:\n${done.stdout}\n${done.stderr}`);
  return done.stdout;
}

/** A virtualenv with the package installed editable with its test extras, reused while pyproject.toml and the Python stay the same. */
async function virtualenv(): Promise<string> {
  const version = (await run(PYTHON, ['-c', 'import sys; print(sys.version)'])).trim();
  const hash = createHash('sha256')
    .update(readFileSync(join(PACKAGE, 'pyproject.toml')))
    .update(version)
    .digest('hex')
    .slice(0, 16);
  const venv = join(VENVS, hash);
  const python = join(venv, 'bin', 'python');
  if (existsSync(join(venv, '.ready'))) return python;
  // A venv without .ready was interrupted mid-install: made again. Older hashes' venvs go.
  for (const old of existsSync(VENVS) ? readdirSync(VENVS) : []) rmSync(join(VENVS, old), { recursive: true, force: true });
  await run(PYTHON, ['-m', 'venv', venv]);
  await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-e', '.[test]']);
  writeFileSync(join(venv, '.ready'), `${version}\n`);
  return python;
}

/**
 * The first start ingests the corpus and stores the judgments' documents after /health answers,
 * and the search index is a projection that follows: the tests start once the documents are
 * stored and the search projector's lag (GET /ops/metrics, open to loopback) is zero, so pages
 * of one query do not change under the pagination test.
 */
async function ingested(service: RunningService): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (service.output().includes('"msg":"judgment documents stored"')) {
      const metrics = await (await fetch(`${service.url}/ops/metrics`)).text();
      const lags = [...metrics.matchAll(/^court_records_projector_lag_events\{projector="search-index:[^"]*"\} (\S+)$/gm)];
      if (lags.length > 0 && lags.every((m) => Number(m[1]) === 0)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(`the first start never stored the judgment documents and indexed them:\n${service.output()}`);
}

function pythonBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```python\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe('the Python SDK against the real service', { timeout: 900_000 }, () => {
  let service: RunningService | undefined;
  let python: string;
  let env: Record<string, string>;
  const work = mkdtempSync(join(tmpdir(), 'python-sdk-'));

  before(async () => {
    // Side by side (the install takes longest on a fresh clone); settled both, so a failed install still stops the service.
    const [starting, installing] = await Promise.allSettled([
      // Embedded defaults as `npm start` has them: not the Meilisearch CI exports for other suites,
      // whose shared index other services fill at the same time.
      startService('node', { AUTO_INGEST: 'true', CORPUS_DIR: corpusDir, MEILI_URL: '', MEILI_API_KEY: '' }),
      virtualenv(),
    ]);
    if (starting.status === 'fulfilled') service = starting.value;
    if (starting.status === 'rejected') throw starting.reason;
    if (installing.status === 'rejected') throw installing.reason;
    const started = starting.value;
    python = installing.value;
    const url = new URL(started.url);
    const serviceEnv = { HOST: url.hostname, PORT: url.port, DATA_DIR: started.dataDir, DATABASE_URL: '', COURT_RECORDS_URL: '' };
    const seed = async (credits: number) =>
      JSON.parse(
        await run(process.execPath, ['bin/court-records.mjs', 'dev', 'seed', '--json', '--credits', String(credits)], serviceEnv, ROOT),
      ) as { apiKey: string; apiRoot: string };
    const funded = await seed(100_000);
    const poor = await seed(1);
    await ingested(started);
    const vectors = join(work, 'vectors.json');
    writeFileSync(vectors, JSON.stringify(pythonSdkVectors()));
    env = {
      COURT_RECORDS_BASE_URL: funded.apiRoot,
      COURT_RECORDS_API_KEY: funded.apiKey,
      COURT_RECORDS_EMPTY_API_KEY: poor.apiKey,
      COURT_RECORDS_SERVER_VECTORS: vectors,
      COURT_RECORDS_REQUIRE_LIVE: '1',
    };
  });
  after(async () => {
    await service?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('its generated models are what the served document generates (scripts/generate_models.py --check)', async () => {
    await run(python, ['scripts/generate_models.py', '--url', `${env.COURT_RECORDS_BASE_URL}/openapi.json`, '--check']);
  });

  it('its pytest suite passes against the service, the live tests included and nothing skipped', async () => {
    const output = await run(python, ['-m', 'pytest', '-q', '-rs', 'tests'], env);
    const summary = output.trim().split('\n').at(-1) ?? '';
    assert.match(summary, /^\d+ passed in /, output);
    assert.doesNotMatch(output, /skipped|SKIPPED/, output);
  });

  it('every python block of its README, and of the repository README, runs against the service', async () => {
    const blocks = [join(PACKAGE, 'README.md'), join(ROOT, 'README.md')].flatMap((file) => pythonBlocks(readFileSync(file, 'utf8')));
    assert.ok(blocks.length >= 7, `found ${String(blocks.length)} python blocks`);
    for (const [i, block] of blocks.entries()) {
      const file = join(work, `readme_${String(i)}.py`);
      writeFileSync(file, block);
      await run(python, [file], env);
    }
  });

  it('builds a wheel and an sdist, MIT licensed and typed (py.typed shipped)', async () => {
    const dist = join(work, 'dist');
    await run(python, ['-m', 'build', '--no-isolation', '--outdir', dist, '.']);
    const built = readdirSync(dist).sort();
    const wheel = built.find((name) => name.endsWith('-py3-none-any.whl'));
    assert.ok(wheel, built.join(', '));
    assert.ok(
      built.some((name) => name.endsWith('.tar.gz')),
      built.join(', '),
    );
    const listing = JSON.parse(
      await run(python, [
        '-c',
        'import json, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(json.dumps({"names": z.namelist(), "metadata": z.read([n for n in z.namelist() if n.endswith("METADATA")][0]).decode()}))',
        join(dist, wheel),
      ]),
    ) as { names: string[]; metadata: string };
    for (const name of ['court_records/__init__.py', 'court_records/models.py', 'court_records/py.typed'])
      assert.ok(listing.names.includes(name), `${name} not in the wheel`);
    assert.match(listing.metadata, /^License-Expression: MIT$/m);
    assert.match(listing.metadata, /^Requires-Dist: httpx/m);
  });
});
