/**
 * Which Temporal CLI the embedded default runs its dev server with. The SDK's fallback is
 * a download from the internet, which a machine without it never gets: the first start
 * then had no workflow engine at all. So the download comes last, after TEMPORAL_CLI_PATH,
 * `temporal` on PATH, and the CLI shipped in ../shared/bin beside the checkout (next to
 * the corpus the service already reads from ../shared).
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** Where the CLI came from: said in the start log and in deep health (never the path itself there). */
export type TemporalCliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | '../shared/bin/temporal' | 'download';

export interface TemporalCli {
  /** Undefined when the SDK is to download it. */
  readonly path: string | undefined;
  readonly source: TemporalCliSource;
}

export interface CliLookup {
  /** TEMPORAL_CLI_PATH; empty counts as unset. */
  readonly configured: string | undefined;
  /** The PATH variable. */
  readonly searchPath: string | undefined;
  /** The folder `../shared` is resolved from (the service's working directory). */
  readonly cwd: string;
  readonly isExecutable: (path: string) => boolean;
}

export class TemporalCliNotFoundError extends Error {
  override readonly name = 'TemporalCliNotFoundError';
}

/** The first of TEMPORAL_CLI_PATH, PATH, ../shared/bin/temporal that is there; else the download. */
export function findTemporalCli(lookup: CliLookup): TemporalCli {
  if (lookup.configured) {
    // Named on purpose: a wrong name is the operator's to fix, not a reason to run another CLI.
    if (!lookup.isExecutable(lookup.configured))
      throw new TemporalCliNotFoundError(`TEMPORAL_CLI_PATH names no executable file: ${lookup.configured}`);
    return { path: lookup.configured, source: 'TEMPORAL_CLI_PATH' };
  }
  for (const dir of (lookup.searchPath ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'temporal');
    if (lookup.isExecutable(candidate)) return { path: candidate, source: 'PATH' };
  }
  const shared = resolve(lookup.cwd, '../shared/bin/temporal');
  if (lookup.isExecutable(shared)) return { path: shared, source: '../shared/bin/temporal' };
  return { path: undefined, source: 'download' };
}

export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The lookup as this process sees it. */
export function temporalCliOf(configured: string | undefined): TemporalCli {
  return findTemporalCli({ configured, searchPath: process.env.PATH, cwd: process.cwd(), isExecutable: isExecutableFile });
}
