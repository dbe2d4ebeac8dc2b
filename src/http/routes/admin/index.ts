/**
 * The operator admin API under /admin on the host root, outside the public base path and
 * its OpenAPI document. It exists only when an admin token is configured: without one
 * nothing is registered and every /admin path is an unknown route (404). With one, every
 * /admin request must carry it as a bearer token, checked before any route runs; wrong
 * tokens are throttled per client address (admin-token-support.ts).
 */
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { CaseRestrictionService } from '../../../application/cases/case-restriction-service.ts';
import type { CreditsService } from '../../../application/credits/credits-service.ts';
import type { App } from '../../app-types.ts';
import { registerPostCaseRestrict } from './post-case-restrict.ts';
import { registerPostKeyRevoke } from './post-key-revoke.ts';
import { registerPostOrganizationDeactivate } from './post-organization-deactivate.ts';
import { registerPostOrganization } from './post-organization.ts';
import { registerPostUserCredits } from './post-user-credits.ts';
import { registerPostUserKey } from './post-user-key.ts';
import { registerPostUser } from './post-user.ts';
import { registerPostUserErase } from './post-user-erase.ts';
import { registerPutOrganizationAllowlist } from './put-organization-allowlist.ts';
import { registerPutUserStanding } from './put-user-standing.ts';
import { requireAdminToken, type AdminTokenAttempts } from './admin-token-support.ts';

export interface AdminDeps {
  /** ADMIN_TOKEN; undefined turns the admin API off. */
  readonly adminToken: string | undefined;
  /** Shared with the ops codec routes, which take the same token. */
  readonly attempts: AdminTokenAttempts;
  readonly accounts: AccountsService;
  readonly cases: CaseRestrictionService;
  readonly credits: CreditsService;
}

export function registerAdminRoutes(app: App, deps: AdminDeps): void {
  if (deps.adminToken === undefined) return;
  app.openAPIRegistry.registerComponent('securitySchemes', 'AdminToken', { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' });
  // Hono's '/admin/*' also matches '/admin' itself.
  app.use('/admin/*', requireAdminToken(deps.adminToken, deps.attempts));

  registerPostOrganization(app, deps.accounts);
  registerPostOrganizationDeactivate(app, deps.accounts);
  registerPutOrganizationAllowlist(app, deps.accounts);
  registerPostUser(app, deps.accounts);
  registerPutUserStanding(app, deps.accounts);
  registerPostUserErase(app, deps.accounts);
  registerPostUserKey(app, deps.accounts);
  registerPostKeyRevoke(app, deps.accounts);
  registerPostCaseRestrict(app, deps.cases);
  registerPostUserCredits(app, deps.credits);
}
