/**
 * The User-Agent the SDK sends: `court-records-sdk/<version> (<runtime> <version>; <os> <arch>)`,
 * so the server's audit log and the operator can tell SDK traffic and its runtime apart.
 * Browsers do not let a page set User-Agent: there none is set.
 */
import { SDK_VERSION } from './version.ts';

interface RuntimeGlobals {
  readonly Deno?: { readonly version: { readonly deno: string }; readonly build: { readonly os: string; readonly arch: string } };
  readonly Bun?: { readonly version: string };
  readonly process?: { readonly versions?: { readonly node?: string }; readonly platform?: string; readonly arch?: string };
  readonly document?: unknown;
}

/** undefined where the runtime forbids setting it (a browser page). */
export function userAgent(globals: RuntimeGlobals = globalThis): string | undefined {
  const product = `court-records-sdk/${SDK_VERSION}`;
  if (globals.Deno) return `${product} (deno ${globals.Deno.version.deno}; ${globals.Deno.build.os} ${globals.Deno.build.arch})`;
  const platform = `${globals.process?.platform ?? 'unknown'} ${globals.process?.arch ?? 'unknown'}`;
  if (globals.Bun) return `${product} (bun ${globals.Bun.version}; ${platform})`;
  if (globals.process?.versions?.node) return `${product} (node ${globals.process.versions.node}; ${platform})`;
  return globals.document === undefined ? `${product} (unknown runtime)` : undefined;
}
