/**
 * Gateway accounts per environment (base URL, credentials sealed at rest,
 * enabled flag) and the routing rule of each method. Every change
 * invalidates this node's routing cache at once; other nodes reload theirs
 * within its lifetime.
 */
import type { GatewayName, RoutingMethod } from '../contract/enums';
import { credentialIssues, GATEWAY_FORMS } from '../contract/gateway-credentials';
import { GatewayAccount, RoutingRule } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { createGatewayAdapter, GatewayConfigError } from '../gateways';
import { checkOutboundUrl, gatewayUrlPolicy, UrlRefused } from '../outbound/url-guard';
import type { Services } from '../services';
import { raises } from './raises';
import { notFound, operatorRefusal, Refusal } from './refusal';
import { loadEnvironment } from './tenancy';
import { ruleGateways } from './routing/rules';
import type { RuleGateway } from './routing/trace';

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
  /** Only the fields to change: a field left out or blank keeps its stored value. */
  credentials: Record<string, unknown>;
  enabled?: boolean;
}

/** One base URL a gateway account may be pointed at, with what it is. */
export interface BaseUrlChoice {
  url: string;
  label: string;
}

const sameUrl = (a: string, b: string) => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
};

/**
 * Where a merchant may point a gateway account: the gateway's own host for
 * the environment's kind, the simulator that plays it in this sandbox (where
 * this service runs simulators), and where the account points now (wired to a
 * simulator, or chosen by a platform operator). Only an operator may go
 * beyond these (the outbound guard still applies to every URL).
 */
export function baseUrlChoices(services: Services, environment: { id: string; kind: string }, gateway: GatewayName, current: string | undefined): BaseUrlChoice[] {
  const choices: BaseUrlChoice[] = [];
  if (environment.kind === 'sandbox') {
    const sandbox = services.sandbox?.forEnvironment ? services.sandbox.forEnvironment(environment.id) : services.sandbox;
    const simulator = sandbox?.running().find((running) => running.gateway === gateway);
    if (simulator) choices.push({ url: simulator.url, label: 'Local simulator (this sandbox)' });
    choices.push({ url: GATEWAY_FORMS[gateway].hosts.sandbox, label: `${gateway} sandbox` });
  } else {
    choices.push({ url: GATEWAY_FORMS[gateway].hosts.production, label: `${gateway} production` });
  }
  if (current && !choices.some((choice) => sameUrl(choice.url, current))) choices.push({ url: current, label: 'Current (set by a platform operator)' });
  return choices;
}

/** A configure's field problems: `invalid_input` with an issue at each field (the operator API's answer names them). */
export const CONFIGURE_GATEWAY = raises(['invalid_input']);

const invalidField = (path: (string | number)[], message: string) => new Refusal('invalid_input', { issues: [{ path, message }] }, 'The gateway configuration is invalid.');

/**
 * Creates or replaces a gateway's configuration in an environment, after
 * checking the credentials against the gateway's description (each problem
 * named by its field) and the adapter's own schema, and the base URL against
 * the outbound address guard (public HTTPS in production: the gateway call
 * carries credentials and the customer's data). Credentials left out or
 * blank keep their stored values, so a secret is never sent back to be kept.
 * `mayChooseHost` false (merchants in production): the credentials and the
 * enabled flag may change, where the gateway is reached may not.
 * `anyHost` false (everyone but platform operators): the base URL is one of
 * `baseUrlChoices`.
 */
export async function configureGateway(em: EntityManager, services: Services, input: GatewayConfiguration, options: { mayChooseHost: boolean; anyHost?: boolean }) {
  const environment = await loadEnvironment(em, input.environmentId);
  await assertBaseUrlAllowed(services, input.baseUrl);
  let account = await em.findOne(GatewayAccount, { environment, gateway: input.gateway });
  const stored = account ? services.secrets.openJson<Record<string, unknown>>(account.credentialsSealed) : {};
  const issues = credentialIssues(input.gateway, input.credentials, Object.keys(stored));
  if (issues.length > 0) throw new Refusal('invalid_input', { issues }, `${input.gateway} credentials are invalid.`);
  const known = GATEWAY_FORMS[input.gateway].fields.map((field) => field.name);
  const credentials = Object.fromEntries(
    known.flatMap((name) => {
      const given = input.credentials[name];
      const value = given === undefined || given === '' ? stored[name] : given;
      return value === undefined ? [] : [[name, value]];
    }),
  );
  try {
    // Building an adapter validates the credentials with the adapter's own schema.
    await createGatewayAdapter(input.gateway, { baseUrl: input.baseUrl, credentials }).close();
  } catch (error) {
    if (error instanceof GatewayConfigError) throw operatorRefusal('invalid', error.message);
    throw error;
  }
  if (!options.mayChooseHost && account?.baseUrl !== input.baseUrl) {
    throw operatorRefusal('forbidden', `Only a platform operator sets where ${input.gateway} is reached in production: keep its base URL${account ? ` (${account.baseUrl})` : ''} and change the credentials only, or ask your platform operator.`);
  }
  if (options.anyHost === false) {
    const choices = baseUrlChoices(services, environment, input.gateway, account?.baseUrl);
    if (!choices.some((choice) => sameUrl(choice.url, input.baseUrl))) {
      throw invalidField(['baseUrl'], `choose one of ${choices.map((choice) => choice.url).join(', ')}; only a platform operator points ${input.gateway} elsewhere`);
    }
  }
  const sealed = services.secrets.sealJson(credentials);
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

/** What the configure form of each gateway offers in an environment: the fields (none of their values) and the base URL choices. */
export async function gatewayForms(em: EntityManager, services: Services, environmentId: string, options: { anyHost: boolean }) {
  const environment = await loadEnvironment(em, environmentId);
  const accounts = await em.find(GatewayAccount, { environment });
  return (Object.keys(GATEWAY_FORMS) as GatewayName[]).map((gateway) => {
    const account = accounts.find((a) => a.gateway === gateway);
    return {
      gateway,
      fields: GATEWAY_FORMS[gateway].fields,
      baseUrls: baseUrlChoices(services, environment, gateway, account?.baseUrl),
      currentBaseUrl: account?.baseUrl ?? null,
      /** A platform operator may type another base URL (the outbound guard still applies). */
      anyHost: options.anyHost,
    };
  });
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
