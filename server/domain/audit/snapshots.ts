/**
 * The "before" of an audited change: each record as its own view shows it
 * (the same shape the change answers with, so before and after compare field
 * by field), read inside the change's transaction just before it. Null: the
 * record does not exist yet. Views never carry secrets; where a secret sits
 * behind the record, a marker says it is set.
 */
import { ApiKey, GatewayAccount, Invitation, Membership, Organization, RoutingRule, User, WebhookEndpoint } from '../../db/entities';
import type { GatewayName, RoutingMethod } from '../../contract/enums';
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';
import { apiKeyView } from '../api-keys';
import { gatewayAccountView } from '../gateway-accounts';
import { invitationView } from '../people/invitations';
import { memberView } from '../people/members';
import { userView } from '../people/users';
import { ruleGateways } from '../routing/rules';
import { organizationView } from '../tenancy';

export async function organizationBefore(em: EntityManager, organizationId: string) {
  const organization = await em.findOne(Organization, { id: organizationId });
  return organization ? organizationView(organization) : null;
}

export async function apiKeyBefore(em: EntityManager, apiKeyId: string) {
  const key = await em.findOne(ApiKey, { id: apiKeyId });
  return key ? apiKeyView(key) : null;
}

/**
 * The account with its credentials opened: recordAudit stores each field as
 * a marker (`set`, or `changed` when the after's value differs), never a
 * value; the values are only compared here, in memory.
 */
export async function gatewayBefore(em: EntityManager, services: Services, environmentId: string, gateway: GatewayName) {
  const account = await em.findOne(GatewayAccount, { environment: environmentId, gateway });
  return account ? { ...gatewayAccountView(services, account), credentials: services.secrets.openJson<Record<string, unknown>>(account.credentialsSealed) } : null;
}

export async function routeBefore(em: EntityManager, environmentId: string, method: RoutingMethod) {
  const rule = await em.findOne(RoutingRule, { environment: environmentId, method });
  if (!rule) return null;
  const gateways = ruleGateways(rule);
  return { environmentId, method: rule.method, gateway: gateways[0]!.gateway, gateways };
}

/** The endpoint's settings, and `secret: 'set'` (its fingerprint changes with a rotation, its value is never stored). */
export async function endpointBefore(em: EntityManager, endpointId: string) {
  const endpoint = await em.findOne(WebhookEndpoint, { id: endpointId }, { refresh: true });
  if (!endpoint) return null;
  return {
    id: endpoint.id,
    url: endpoint.url,
    enabledEvents: endpoint.enabledEvents,
    enabled: endpoint.enabled,
    retries: endpoint.retries,
    description: endpoint.description ?? null,
    secretRotatedAt: endpoint.secretRotatedAt?.toISOString() ?? null,
  };
}

export async function memberBefore(em: EntityManager, organizationId: string, userId: string) {
  const membership = await em.findOne(Membership, { organization: organizationId, user: userId }, { populate: ['user'] });
  return membership ? memberView(membership as Membership & { user: User }) : null;
}

export async function invitationBefore(em: EntityManager, invitationId: string) {
  const invitation = await em.findOne(Invitation, { id: invitationId });
  return invitation ? { ...invitationView(invitation), revokedAt: invitation.revokedAt?.toISOString() ?? null, acceptedAt: invitation.acceptedAt?.toISOString() ?? null } : null;
}

export async function userBefore(em: EntityManager, userId: string) {
  const user = await em.findOne(User, { id: userId });
  return user ? userView(user) : null;
}
