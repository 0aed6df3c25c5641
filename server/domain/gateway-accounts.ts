/**
 * Gateway accounts per environment (base URL, credentials sealed at rest,
 * enabled flag) and the routing rule of each method. Every change
 * invalidates this node's routing cache at once; other nodes reload theirs
 * within its lifetime.
 */
import type { GatewayName, RoutingMethod } from '../contract/enums';
import { GatewayAccount, RoutingRule } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { createGatewayAdapter, GatewayConfigError } from '../gateways';
import { checkOutboundUrl, gatewayUrlPolicy, UrlRefused } from '../outbound/url-guard';
import type { Services } from '../services';
import { notFound, operatorRefusal } from './refusal';
import { loadEnvironment } from './tenancy';
import { ruleGateways } from './routing';
import type { RuleGateway } from './routing-trace';

/** Where a gateway sends its notifications for this account. */
export const inboundWebhookUrl = (services: Services, account: Pick<GatewayAccount, 'id' | 'gateway'>): string =>
  `${services.publicUrl()}/webhooks/${account.gateway}/${account.id}`;

export const gatewayAccountView = (services: Services, account: GatewayAccount) => ({
  id: account.id,
  environmentId: account.environment.id,
  gateway: account.gateway,
  enabled: account.enabled,
  baseUrl: account.baseUrl,
  /** Which credential fields are set; never their values. */
  credentialFields: Object.keys(services.secrets.openJson<Record<string, unknown>>(account.credentialsSealed)).sort(),
  webhookUrl: inboundWebhookUrl(services, account),
  updatedAt: account.updatedAt.toISOString(),
});

export interface GatewayConfiguration {
  environmentId: string;
  gateway: GatewayName;
  baseUrl: string;
  credentials: Record<string, unknown>;
  enabled?: boolean;
}

/**
 * Creates or replaces a gateway's configuration in an environment, after
 * checking the credentials fit that gateway and the base URL passes the
 * outbound address guard (public HTTPS in production: the gateway call
 * carries credentials and the customer's data). `mayChooseHost` false
 * (merchants in production): the credentials and the enabled flag may
 * change, where the gateway is reached may not.
 */
export async function configureGateway(em: EntityManager, services: Services, input: GatewayConfiguration, options: { mayChooseHost: boolean }) {
  const environment = await loadEnvironment(em, input.environmentId);
  await assertBaseUrlAllowed(services, input.baseUrl);
  try {
    // Building an adapter validates the credentials' shape for that gateway.
    await createGatewayAdapter(input.gateway, { baseUrl: input.baseUrl, credentials: input.credentials }).close();
  } catch (error) {
    if (error instanceof GatewayConfigError) throw operatorRefusal('invalid', error.message);
    throw error;
  }
  let account = await em.findOne(GatewayAccount, { environment, gateway: input.gateway });
  if (!options.mayChooseHost && account?.baseUrl !== input.baseUrl) {
    throw operatorRefusal('forbidden', `Only a platform operator sets where ${input.gateway} is reached in production: keep its base URL${account ? ` (${account.baseUrl})` : ''} and change the credentials only, or ask your platform operator.`);
  }
  const sealed = services.secrets.sealJson(input.credentials);
  if (account) {
    account.baseUrl = input.baseUrl;
    account.credentialsSealed = sealed;
    if (input.enabled !== undefined) account.enabled = input.enabled;
    account.updatedAt = new Date();
  } else {
    account = em.create(GatewayAccount, { environment, gateway: input.gateway, baseUrl: input.baseUrl, credentialsSealed: sealed, enabled: input.enabled ?? true });
  }
  await em.flush();
  services.gateways.invalidate(environment.id);
  return gatewayAccountView(services, account);
}

async function assertBaseUrlAllowed(services: Services, baseUrl: string): Promise<void> {
  try {
    await checkOutboundUrl(baseUrl, gatewayUrlPolicy(services.config), services.webhooks.resolveHost);
  } catch (error) {
    if (error instanceof UrlRefused) throw operatorRefusal('invalid', `baseUrl refused: ${error.message}.`);
    throw error;
  }
}

export async function setGatewayEnabled(em: EntityManager, services: Services, input: { environmentId: string; gateway: GatewayName; enabled: boolean }) {
  const account = await em.findOne(GatewayAccount, { environment: input.environmentId, gateway: input.gateway });
  if (!account) throw notFound(`Gateway ${input.gateway} in environment`, input.environmentId);
  account.enabled = input.enabled;
  account.updatedAt = new Date();
  await em.flush();
  services.gateways.invalidate(input.environmentId);
  return gatewayAccountView(services, account);
}

export async function listGatewayAccounts(em: EntityManager, services: Services, environmentId: string) {
  const environment = await loadEnvironment(em, environmentId);
  return (await em.find(GatewayAccount, { environment }, { orderBy: { gateway: 'asc' } })).map((account) => gatewayAccountView(services, account));
}

/**
 * Sets a method's rule: an ordered list of gateways with optional weights
 * (checked by the input), or one gateway as before. The `gateway` column keeps
 * the first, for readers of one gateway.
 */
export async function setRoute(
  em: EntityManager,
  services: Services,
  input: { environmentId: string; method: RoutingMethod; gateway?: GatewayName; gateways?: { gateway: GatewayName; weight?: number | null }[] },
) {
  const environment = await loadEnvironment(em, input.environmentId);
  const gateways: RuleGateway[] = input.gateways ? input.gateways.map(({ gateway, weight }) => ({ gateway, weight: weight ?? null })) : [{ gateway: input.gateway!, weight: null }];
  const rule = await em.upsert(RoutingRule, { environment, method: input.method, gateway: gateways[0]!.gateway, gateways, updatedAt: new Date() });
  services.gateways.invalidate(environment.id);
  return routeView(environment.id, rule);
}

/** A rule as operators see it: `gateways` in order with their weights; `gateway` is the first (the primary), as before lists. */
const routeView = (environmentId: string, rule: RoutingRule) => {
  const gateways = ruleGateways(rule);
  return { environmentId, method: rule.method, gateway: gateways[0]!.gateway, gateways };
};

export async function removeRoute(em: EntityManager, services: Services, input: { environmentId: string; method: RoutingMethod }) {
  const removed = await em.nativeDelete(RoutingRule, { environment: input.environmentId, method: input.method });
  services.gateways.invalidate(input.environmentId);
  return { environmentId: input.environmentId, method: input.method, removed: removed > 0 };
}

export async function listRoutes(em: EntityManager, environmentId: string) {
  const environment = await loadEnvironment(em, environmentId);
  return (await em.find(RoutingRule, { environment }, { orderBy: { method: 'asc' } })).map((rule) => routeView(environment.id, rule));
}
