/**
 * `npm run sdk:build`: compiles the SDK's TypeScript to JavaScript with declarations in
 * sdk/dist and writes the package.json it ships with, so JavaScript projects install it
 * like any package (`npm pack ./sdk/dist`, or publish that folder). The workspace itself
 * keeps resolving the TypeScript sources.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const SDK = join(import.meta.dirname, '..', 'sdk');
const DIST = join(SDK, 'dist');

interface SdkPackage {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly exports?: unknown;
  readonly [field: string]: unknown;
}

rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(SDK, 'tsconfig.build.json')], { stdio: 'inherit' });
// The workspace's manifest points at the sources and is private; the built one points at the JavaScript.
const { private: _private, exports: _sources, ...manifest } = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as SdkPackage;
writeFileSync(
  join(DIST, 'package.json'),
  `${JSON.stringify({ ...manifest, exports: { '.': { types: './index.d.ts', default: './index.js' } } }, null, 2)}\n`,
);
process.stdout.write(`built ${manifest.name}@${manifest.version} in ${DIST}\n`);
