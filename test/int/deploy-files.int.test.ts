/**
 * The deployment files, checked without a Docker engine (none runs here or in CI, so the
 * images are never built or started): docker-compose.yml against the Compose Specification
 * schema (check-jsonschema's vendored copy), the Dockerfile through hadolint, and our own
 * rules on both: a multi-stage image on Node 24 that ships production dependencies only and
 * runs as a non-root user, image tags pinned, and every health check calling a program its
 * image has. Slim and Alpine images lack curl or wget, and a health check that cannot run
 * keeps a service unhealthy for ever, so the programs of each image are listed below from
 * the image's own Dockerfile. .ci/run installs hadolint and check-jsonschema (PyPI).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { outboundAddresses } from '../../src/composition/settings.ts';
import { loadConfig, SECRET_SETTINGS } from '../../src/config.ts';

const DOCKERFILE = readFileSync('Dockerfile', 'utf8');
const COMPOSE_TEXT = readFileSync('docker-compose.yml', 'utf8');
const DOCKERIGNORE = readFileSync('.dockerignore', 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const CONFIG_SOURCE = readFileSync('src/config.ts', 'utf8');

/**
 * Programs each image has, by repository, from its Dockerfile: the health checks may call
 * only these. An image not listed fails the check until someone looks inside it.
 */
const PROGRAMS: Readonly<Record<string, readonly string[]>> = {
  // Debian slim with Node: no curl, no wget.
  node: ['node', 'npm', 'sh'],
  'pgvector/pgvector': ['pg_isready', 'psql', 'sh'],
  // Ubuntu; the Dockerfile installs wget.
  'clickhouse/clickhouse-server': ['clickhouse', 'clickhouse-client', 'wget', 'sh'],
  // Alpine; the Dockerfile installs curl.
  'getmeili/meilisearch': ['meilisearch', 'curl', 'sh'],
  redis: ['redis-server', 'redis-cli', 'sh'],
  // From 1.30 Alpine with temporal-server only: BusyBox's nc and wget, no tctl, no temporal CLI.
  'temporalio/server': ['temporal-server', 'nc', 'wget', 'sh'],
  'temporalio/admin-tools': ['temporal', 'temporal-sql-tool', 'nc', 'sh'],
  // Alpine; the Dockerfile installs bash and curl.
  'temporalio/ui': ['ui-server', 'bash', 'curl', 'sh'],
  // Debian slim: bash, no curl or wget.
  haproxy: ['haproxy', 'bash', 'sh'],
};

interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

/** Dockerfile instructions, comments dropped and continuation lines joined. */
function instructions(text: string): Instruction[] {
  const found: Instruction[] = [];
  let pending: { text: string; line: number } | null = null;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith('#')) return;
    if (pending === null && line === '') return;
    const continued = line.endsWith('\\');
    const part = continued ? line.slice(0, -1) : line;
    pending = pending === null ? { text: part, line: index + 1 } : { text: `${pending.text} ${part}`, line: pending.line };
    if (continued) return;
    const [keyword = '', ...rest] = pending.text.split(/\s+/);
    found.push({ keyword: keyword.toUpperCase(), args: rest.join(' '), line: pending.line });
    pending = null;
  });
  return found;
}

/** `repo:tag` (a registry port or digest aside) into its parts; no tag gives null. */
function imageParts(reference: string): { repository: string; tag: string | null } {
  const [name = ''] = reference.split('@');
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  return colon > slash ? { repository: name.slice(0, colon), tag: name.slice(colon + 1) } : { repository: name, tag: null };
}

function tagProblems(reference: string, where: string): string[] {
  const { tag } = imageParts(reference);
  if (tag === null) return [`${where}: ${reference} has no tag (it means latest)`];
  if (tag === 'latest') return [`${where}: ${reference} uses latest`];
  return [];
}

/** The program a Docker exec-form array or shell string runs first. */
function programOf(command: readonly string[] | string): string {
  const words = typeof command === 'string' ? command.trim().split(/\s+/) : command;
  return words[0] ?? '';
}

/** The Dockerfile's HEALTHCHECK command, in exec form or shell form, with its options left out. */
function healthcheckProgram(args: string): string {
  const command = args.replace(/^(--[\w-]+=\S+\s+)*CMD\s+/, '');
  return command.startsWith('[') ? programOf(JSON.parse(command) as string[]) : programOf(command);
}

function dockerfileProblems(text: string): string[] {
  const all = instructions(text);
  const problems: string[] = [];
  const froms = all.filter((i) => i.keyword === 'FROM');
  if (froms.length < 2) problems.push('not multi-stage: the build tools and caches must stay out of the shipped stage');
  for (const from of froms) {
    const reference = from.args.split(/\s+/).find((word) => !word.startsWith('--')) ?? '';
    problems.push(...tagProblems(reference, `line ${from.line}`));
    const { repository, tag } = imageParts(reference);
    if (repository === 'node' && !/^24(\D|$)/.test(tag ?? '')) problems.push(`line ${from.line}: ${reference} is not Node 24`);
  }
  const lastFrom = all.lastIndexOf(froms.at(-1)!);
  const final = all.slice(lastFrom);
  const user = final.filter((i) => i.keyword === 'USER').at(-1);
  if (!user) problems.push('the final stage sets no USER: the service would run as root');
  else if (/^(root|0)(:|$)/.test(user.args)) problems.push(`line ${user.line}: USER ${user.args} is root`);
  const installs = all.filter((i) => i.keyword === 'RUN' && /\bnpm (ci|install|i)\b/.test(i.args));
  if (installs.length === 0) problems.push('no npm ci: the dependencies come from the lockfile');
  for (const run of installs) {
    if (!/\bnpm ci\b/.test(run.args)) problems.push(`line ${run.line}: npm install instead of npm ci`);
    if (!/--omit=dev\b/.test(run.args)) problems.push(`line ${run.line}: npm ci without --omit=dev ships the dev dependencies`);
  }
  const healthcheck = final.find((i) => i.keyword === 'HEALTHCHECK');
  if (!healthcheck) problems.push('no HEALTHCHECK');
  else {
    const program = healthcheckProgram(healthcheck.args);
    if (!(PROGRAMS.node ?? []).includes(program))
      problems.push(`line ${healthcheck.line}: HEALTHCHECK calls ${program}, not in a node image`);
  }
  return problems;
}

interface Service {
  readonly image?: string;
  readonly build?: unknown;
  readonly command?: readonly string[] | string;
  readonly environment?: Record<string, unknown>;
  readonly depends_on?: Record<string, { condition?: string }>;
  readonly healthcheck?: { test?: readonly string[] | string };
}

/** The program a compose health check runs: `CMD` arrays name it, `CMD-SHELL` strings start with it. */
function composeHealthProgram(test: readonly string[] | string): string {
  if (typeof test === 'string') return programOf(test);
  const [form, ...rest] = test;
  return form === 'CMD-SHELL' ? programOf(rest.join(' ')) : programOf(rest);
}

/** Entry files the built image runs (`node --import tsx FILE`): they must be in the build context. */
function entryProblems(command: readonly string[], where: string): string[] {
  const file = command.find((word) => /\.(ts|mjs|js)$/.test(word));
  if (file === undefined) return [];
  if (!existsSync(file)) return [`${where}: ${file} does not exist`];
  const top = file.split('/')[0]!;
  return DOCKERIGNORE.includes(top) ? [`${where}: ${file} is left out of the image by .dockerignore`] : [];
}

function composeProblems(text: string): string[] {
  const { services } = parse(text, { merge: true }) as { services: Record<string, Service> };
  const problems: string[] = [];
  const mustBeHealthy = new Set(['api', 'worker']);
  for (const service of Object.values(services)) {
    for (const [name, dependency] of Object.entries(service.depends_on ?? {})) {
      if (dependency.condition === 'service_healthy') mustBeHealthy.add(name);
    }
  }
  for (const [name, service] of Object.entries(services)) {
    if (service.image !== undefined) problems.push(...tagProblems(service.image, name));
    const repository = service.build !== undefined ? 'node' : imageParts(service.image ?? '').repository;
    const test = service.healthcheck?.test;
    if (test === undefined) {
      if (mustBeHealthy.has(name)) problems.push(`${name}: no health check, yet it must become healthy`);
    } else {
      const program = composeHealthProgram(test);
      const programs = PROGRAMS[repository];
      if (programs === undefined) problems.push(`${name}: programs of ${repository} unknown; list them in PROGRAMS`);
      else if (!programs.includes(program)) problems.push(`${name}: health check calls ${program}, not in ${repository}`);
      if (typeof test !== 'string' && service.build !== undefined) problems.push(...entryProblems(test, `${name} health check`));
    }
    if (service.build !== undefined) {
      if (Array.isArray(service.command)) problems.push(...entryProblems(service.command, name));
      for (const variable of Object.keys(service.environment ?? {})) {
        const setting = (SECRET_SETTINGS as readonly string[]).find((secret) => variable === `${secret}_FILE`) ?? variable;
        if (!new RegExp(`^\\s+${setting}: `, 'm').test(CONFIG_SOURCE)) problems.push(`${name}: ${variable} is not read by src/config.ts`);
      }
    }
  }
  return problems;
}

/** Runs a linter installed by .ci/run; a missing one fails the test rather than skipping it. */
function run(command: string, args: readonly string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error) throw new Error(`${command} is not installed (bash .ci/run installs it): ${result.error.message}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('Dockerfile', () => {
  it('passes hadolint, every rule at every level', () => {
    const { status, output } = run('hadolint', ['--failure-threshold', 'style', 'Dockerfile']);
    assert.equal(status, 0, output);
  });

  it('is multi-stage on Node 24, ships production dependencies only, runs as non-root and checks its health with node', () => {
    assert.deepEqual(dockerfileProblems(DOCKERFILE), []);
    const entry = instructions(DOCKERFILE).findLast((i) => i.keyword === 'CMD');
    assert.ok(entry);
    assert.deepEqual(entryProblems(JSON.parse(entry.args) as string[], 'CMD'), []);
  });

  it('turns the development setting for outbound requests off, and its environment is one the service starts with', () => {
    const env = Object.fromEntries(
      instructions(DOCKERFILE)
        .filter((i) => i.keyword === 'ENV')
        .flatMap((i) => i.args.split(/\s+/).map((pair) => pair.split('=') as [string, string])),
    );
    assert.equal(env.WEBHOOK_ALLOW_INSECURE_URLS, 'false');
    assert.equal(outboundAddresses(loadConfig(env)), 'public');
  });

  it('is refused without a USER, with a root USER, on Node 20, with dev dependencies or with a curl health check', () => {
    const cases: readonly [string, string, RegExp][] = [
      ['USER 1000:1000\n', '', /sets no USER/],
      ['USER 1000:1000\n', 'USER root\n', /is root/],
      ['FROM node:24-bookworm-slim AS deps', 'FROM node:20-bookworm-slim AS deps', /is not Node 24/],
      ['FROM node:24-bookworm-slim\n', 'FROM node\n', /has no tag/],
      ['npm ci --omit=dev', 'npm ci', /without --omit=dev/],
      ['CMD ["node", "-e"', 'CMD ["curl", "-e"', /HEALTHCHECK calls curl/],
    ];
    for (const [from, to, problem] of cases) {
      assert.ok(DOCKERFILE.includes(from), `the Dockerfile no longer has ${from.trim()}: update this case`);
      assert.match(dockerfileProblems(DOCKERFILE.replace(from, to)).join('\n'), problem);
    }
  });
});

describe('docker-compose.yml', () => {
  it('is valid under the Compose Specification schema', () => {
    const { status, output } = run('check-jsonschema', ['--builtin-schema', 'vendor.compose-spec', 'docker-compose.yml']);
    assert.equal(status, 0, output);
  });

  it('pins every image, and every health check calls a program its image has', () => {
    assert.deepEqual(composeProblems(COMPOSE_TEXT), []);
  });

  it('is refused with wget in the node image, tctl in the Temporal server, a latest tag or an unknown variable or secret file', () => {
    const cases: readonly [string, string, RegExp][] = [
      [
        "['CMD', 'node', '--import', 'tsx', 'scripts/worker-health.ts']",
        "['CMD', 'wget', '-qO-', 'http://127.0.0.1:3000']",
        /worker: health check calls wget/,
      ],
      ["['CMD', 'nc', '-z', '127.0.0.1', '7233']", "['CMD', 'tctl', 'cluster', 'health']", /temporal: health check calls tctl/],
      ['redis:7-alpine', 'redis:latest', /redis: redis:latest uses latest/],
      ['    REDIS_URL:', '    REDIS_ADDRESS:', /REDIS_ADDRESS is not read/],
      ['  DATABASE_URL_FILE:', '  DATABASE_PASSWORD_FILE:', /DATABASE_PASSWORD_FILE is not read/],
      ["'scripts/worker-health.ts']", "'scripts/worker-health-gone.ts']", /does not exist/],
    ];
    for (const [from, to, problem] of cases) {
      assert.ok(COMPOSE_TEXT.includes(from), `docker-compose.yml no longer has ${from}: update this case`);
      assert.match(composeProblems(COMPOSE_TEXT.replace(from, to)).join('\n'), problem);
    }
  });
});
