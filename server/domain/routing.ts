/**
 * Routing: which gateway serves a method (PIX, CARD, SUBSCRIPTION) in an
 * environment, and the adapter to reach it. The configuration is read on
 * every create, so it is cached per environment: operator changes through this
 * process invalidate it at once; other nodes see them within CACHE_TTL_MS.
 */
import type { GatewayName, PaymentMethod, RoutingMethod } from '../contract/enums';
import { Refusal } from './refusal';
import { GatewayAccount, RoutingRule } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { speakingThroughTheCore } from './gateway-calls';
import { createGatewayAdapter, gatewayCapabilities, type GatewayAdapter, type GatewayTransport } from '../gateways';
import { raises } from './raises';
import type { SecretBox } from './secret-box';

export const CACHE_TTL_MS = 5_000;

interface AccountRecord {
  id: string;
  gateway: GatewayName;
  enabled: boolean;
  baseUrl: string;
  credentialsSealed: string;
  version: number;
}

interface EnvironmentRouting {
  loadedAt: number;
  rules: Map<RoutingMethod, GatewayName>;
  accounts: Map<GatewayName, AccountRecord>;
}

export interface Route {
  gateway: GatewayName;
  accountId: string;
  adapter: GatewayAdapter;
}

/** What routing a new resource can answer with. */
export const ROUTE_NEW = raises(['no_routing_rule', 'provider_not_configured', 'provider_disabled', 'method_not_supported']);
/** What reaching the gateway of an existing resource can answer with. */
export const ROUTE_EXISTING = raises(['provider_not_configured']);

/** The payment method a routing method charges with: subscriptions are card-only. */
export const methodOfRoute = (method: RoutingMethod): PaymentMethod => (method === 'PIX' ? 'pix' : 'card');

/**
 * A new create's route, or the routing refusal it answers once the checks
 * that come before routing are done: what the routed gateway requires is
 * validation (400), which comes before billing (402), which comes before
 * routing's own refusals (409) (decision 5).
 */
export type RouteDecision = { route: Route; refusal?: never } | { route?: never; refusal: Refusal };

export class GatewayDirectory {
  private readonly routing = new Map<string, EnvironmentRouting>();
  private readonly adapters = new Map<string, { version: number; adapter: GatewayAdapter }>();

  constructor(
    private readonly secrets: SecretBox,
    /** Timeouts, and in production the connector that refuses non-public addresses. */
    private readonly transport: GatewayTransport = {},
    /** Milliseconds now, for the cache's age. */
    private readonly clock: () => number = Date.now,
  ) {}

  /** The gateway for a new payment or subscription, or the routing 409 that stops it. */
  async resolve(em: EntityManager, environmentId: string, method: RoutingMethod): Promise<Route> {
    const routing = await this.load(em, environmentId);
    const gateway = routing.rules.get(method);
    if (!gateway) throw new Refusal('no_routing_rule', {}, `No gateway is configured for ${method} in this environment.`);
    const account = routing.accounts.get(gateway);
    if (!account) throw new Refusal('provider_not_configured', { provider: gateway });
    if (!account.enabled) throw new Refusal('provider_disabled', { provider: gateway });
    const paymentMethod = methodOfRoute(method);
    if (!gatewayCapabilities[gateway].methods.includes(paymentMethod)) {
      throw new Refusal('method_not_supported', { provider: gateway, method: paymentMethod });
    }
    return { gateway, accountId: account.id, adapter: this.adapterOf(account) };
  }

  /** `resolve`, with a routing refusal handed back instead of thrown, for the caller to raise in its turn. */
  async decide(em: EntityManager, environmentId: string, method: RoutingMethod): Promise<RouteDecision> {
    try {
      return { route: await this.resolve(em, environmentId, method) };
    } catch (error) {
      if (error instanceof Refusal) return { refusal: error };
      throw error;
    }
  }

  /**
   * The adapter for an existing resource's gateway (cancel, sync). A disabled
   * gateway still serves resources it already holds; only credentials are required.
   */
  async forExisting(em: EntityManager, environmentId: string, gateway: GatewayName): Promise<Route> {
    const account = (await this.load(em, environmentId)).accounts.get(gateway);
    if (!account) throw new Refusal('provider_not_configured', { provider: gateway });
    return { gateway, accountId: account.id, adapter: this.adapterOf(account) };
  }

  /** The adapter of one account, for inbound webhooks addressed to it. */
  async forAccount(em: EntityManager, accountId: string): Promise<(Route & { environmentId: string }) | null> {
    const account = await em.findOne(GatewayAccount, { id: accountId });
    if (!account) return null;
    return { gateway: account.gateway, accountId: account.id, environmentId: account.environment.id, adapter: this.adapterOf(toRecord(account)) };
  }

  invalidate(environmentId: string): void {
    this.routing.delete(environmentId);
  }

  async close(): Promise<void> {
    const adapters = [...this.adapters.values()];
    this.adapters.clear();
    await Promise.all(adapters.map(({ adapter }) => adapter.close()));
  }

  private async load(em: EntityManager, environmentId: string): Promise<EnvironmentRouting> {
    const cached = this.routing.get(environmentId);
    if (cached && this.clock() - cached.loadedAt < CACHE_TTL_MS) return cached;
    const [rules, accounts] = await Promise.all([
      em.find(RoutingRule, { environment: environmentId }),
      em.find(GatewayAccount, { environment: environmentId }),
    ]);
    const routing: EnvironmentRouting = {
      loadedAt: this.clock(),
      rules: new Map(rules.map((rule) => [rule.method, rule.gateway])),
      accounts: new Map(accounts.map((account) => [account.gateway, toRecord(account)])),
    };
    this.routing.set(environmentId, routing);
    return routing;
  }

  private adapterOf(account: AccountRecord): GatewayAdapter {
    const cached = this.adapters.get(account.id);
    if (cached && cached.version === account.version) return cached.adapter;
    if (cached) void cached.adapter.close();
    const adapter = speakingThroughTheCore(
      createGatewayAdapter(account.gateway, {
        baseUrl: account.baseUrl,
        credentials: this.secrets.openJson(account.credentialsSealed),
        ...this.transport,
      }),
    );
    this.adapters.set(account.id, { version: account.version, adapter });
    return adapter;
  }
}

function toRecord(account: GatewayAccount): AccountRecord {
  return {
    id: account.id,
    gateway: account.gateway,
    enabled: account.enabled,
    baseUrl: account.baseUrl,
    credentialsSealed: account.credentialsSealed,
    version: account.updatedAt.getTime(),
  };
}
