/**
 * Who may read whose audit trail (GET /audit), as a rule of the facts: the caller, the
 * scope asked for and the organisation of the user named. Each refusal, and each way in.
 */
import { describe, it } from 'node:test';
import { decideAuditScope, type AuditCaller } from '../../src/domain/audit/scope.ts';
import { rule } from '../support/decider-spec.ts';

const member: AuditCaller = { userId: 'usr_1', role: 'MEMBER', organizationId: 'org_1' };
const admin: AuditCaller = { userId: 'usr_admin', role: 'ORG_ADMIN', organizationId: 'org_1' };
const loner: AuditCaller = { userId: 'usr_solo', role: 'MEMBER', organizationId: null };
const scope = rule(decideAuditScope);

describe('audit scope', () => {
  it('refuses a request that names neither an organisation nor a user', () => {
    scope.when(member, {}, undefined).thenRefuses({ tag: 'ScopeMissing' });
  });

  it("lets a member read their own organisation's trail, and no other", () => {
    scope.when(member, { organizationId: 'org_1' }, undefined).thenAdmits();
    scope.when(member, { organizationId: 'org_2' }, undefined).thenRefuses({ tag: 'ForeignOrganization', callerOrganizationId: 'org_1' });
    scope.when(loner, { organizationId: 'org_1' }, undefined).thenRefuses({ tag: 'ForeignOrganization', callerOrganizationId: null });
  });

  it('lets any caller read their own trail', () => {
    scope.when(member, { userId: 'usr_1' }, 'org_1').thenAdmits();
    scope.when(loner, { userId: 'usr_solo' }, null).thenAdmits();
  });

  it("lets an ORG_ADMIN read a member of their organisation, and refuses anyone else's trail", () => {
    scope.when(admin, { userId: 'usr_1' }, 'org_1').thenAdmits();
    scope.when(admin, { organizationId: 'org_1', userId: 'usr_1' }, 'org_1').thenAdmits();
    scope.when(admin, { userId: 'usr_9' }, 'org_2').thenRefuses({ tag: 'ForeignUser' });
    scope.when(admin, { userId: 'usr_9' }, null).thenRefuses({ tag: 'ForeignUser' });
    scope.when(admin, { userId: 'usr_missing' }, undefined).thenRefuses({ tag: 'ForeignUser' });
    scope.when(member, { userId: 'usr_2' }, 'org_1').thenRefuses({ tag: 'ForeignUser' });
    scope.when({ ...admin, organizationId: null }, { userId: 'usr_9' }, null).thenRefuses({ tag: 'ForeignUser' });
  });
});
