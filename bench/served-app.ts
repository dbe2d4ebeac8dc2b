/**
 * A test app served on a loopback port with one funded enterprise key, for the benches that
 * load the HTTP path: every call is admitted and charged as in production, and limits a
 * bench would otherwise measure as refusals are lifted for that key.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { NewUser } from '../src/application/accounts/accounts-service.ts';
import { enterpriseUser } from '../test/support/access-fixture.ts';
import { BASE, type TestApp } from '../test/support/app.ts';

export interface ServedApp {
  /** The API root, e.g. http://127.0.0.1:PORT/api/v1/prod. */
  readonly root: string;
  readonly key: string;
  readonly userId: string;
  close(): void;
}

const operator = { kind: 'operator' } as const;

export async function serveWithFundedKey(
  t: TestApp,
  options: { email: string; credits: number; user?: Partial<NewUser> },
): Promise<ServedApp> {
  const user = await t.application.accounts.registerUser(enterpriseUser(options.email, options.user), operator);
  if (!user.ok) throw new Error(user.error.tag);
  const key = await t.application.accounts.createKey(user.value.userId, 'bench', operator);
  if (!key.ok) throw new Error(key.error.tag);
  await t.application.credits.grant(user.value.userId, { amount: options.credits, source: 'grant' });
  const listening = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => listening.once('listening', resolve));
  return {
    root: `http://127.0.0.1:${String((listening.address() as AddressInfo).port)}${BASE}`,
    key: key.value.fullKey,
    userId: user.value.userId,
    close: () => listening.close(),
  };
}
