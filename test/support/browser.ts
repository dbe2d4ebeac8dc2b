/**
 * Debian's chromium driven by playwright-core (never a downloaded browser), for the browser
 * tests. CHROMIUM_PATH overrides the binary; without one the tests skip with this reason.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);

export function chromiumPath(): string | undefined {
  return CANDIDATES.find((p) => existsSync(p));
}

export const NO_CHROMIUM = 'no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)';

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(NO_CHROMIUM);
  // --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
