/**
 * `npm run sdk:build`: compiles the SDK to the package JavaScript projects install, in
 * sdk/dist: ES modules in esm/ and CommonJS in cjs/ (a `type: commonjs` manifest of its
 * own), each with its declarations, behind `exports` conditions (import, require, types),
 * with the LICENSE and README beside them (`npm pack ./sdk/dist`, or publish that folder).
 * The workspace itself keeps resolving the TypeScript sources. Two tsc runs rather than a
 * bundler: the output is one file per source file, readable and source-mapped.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Declarations keep the sources' `./x.ts` specifiers; the shipped ones name the `.js` beside them. */
function rewriteDeclarationSpecifiers(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'"));
  }
}

rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
for (const config of ['tsconfig.build.json', 'tsconfig.cjs.json'])
  execFileSync(process.execPath, [tsc, '-p', join(SDK, config)], { stdio: 'inherit' });
writeFileSync(join(DIST, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
rewriteDeclarationSpecifiers(DIST);
for (const file of ['LICENSE', 'README.md']) copyFileSync(join(SDK, file), join(DIST, file));
// The workspace's manifest points at the sources and is private; the built one points at the JavaScript.
const { private: _private, exports: _sources, ...manifest } = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as SdkPackage;
const built = {
  ...manifest,
  main: './cjs/index.js',
  module: './esm/index.js',
  types: './cjs/index.d.ts',
  exports: {
    '.': {
      import: { types: './esm/index.d.ts', default: './esm/index.js' },
      require: { types: './cjs/index.d.ts', default: './cjs/index.js' },
    },
    './package.json': './package.json',
  },
  files: ['esm', 'cjs'],
};
writeFileSync(join(DIST, 'package.json'), `${JSON.stringify(built, null, 2)}\n`);
process.stdout.write(`built ${manifest.name}@${manifest.version} (ESM and CommonJS) in ${DIST}\n`);
