/**
 * In-process callers of the operator procedures as particular people, with a
 * browser's address and user agent, for the audit log's tests.
 */
import { operatorContext, type WebCaller } from '../../server/operator/procedure';
import type { Actor, MemberRole } from '../../server/operator/access';
import { operatorRouter } from '../../server/operator/router';
import type { TestService } from './service';

export const AUDIT_ADDRESS = '203.0.113.7';
export const AUDIT_USER_AGENT = 'audit-test/1.0';

/** A browser with no session cookie yet (cookies set are ignored). */
export const fakeBrowser = (session: WebCaller['session'] = null): WebCaller => ({
  session,
  address: AUDIT_ADDRESS,
  userAgent: AUDIT_USER_AGENT,
  deviceToken: null,
  setSessionCookie: () => {},
  setDeviceCookie: () => {},
  clearSessionCookie: () => {},
});

export const callerAs = (service: TestService, actor: Actor, web: WebCaller | null = fakeBrowser()) =>
  operatorRouter.createCaller(operatorContext(service.services, service.services.log, actor, web));

export const memberActor = (userId: string, roles: Record<string, MemberRole>): Actor => ({ kind: 'member', userId, roles: new Map(Object.entries(roles)) });

let counter = 0;
export const auditEmail = (label: string) => `${label}-${process.pid}-${++counter}@audit.example.com`;
export const AUDIT_PASSWORD = 'audit log test password';
