/**
 * Routing: which gateways serve a method (PIX, CARD, SUBSCRIPTION) in an
 * environment, in which order, and the adapters to reach them (decision 21).
 * The configuration is read on every create, so it is cached per environment:
 * operator changes through this process invalidate it at once; other nodes
 * see them within CACHE_TTL_MS. Each gateway's health and circuit breaker
 * live in `health` (health.ts), a rule's order and weights in rules.ts; the
 * order of one create is `plan`, the dry run of it `explain`.
 */
import type { GatewayName, PaymentMethod, RoutingMethod } from '../../contract/enums';
import { Refusal } from '../refusal';
import { GatewayAccount, RoutingRule } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import { observedGatewayCalls } from '../gateway-calls';
import { createGatewayAdapter, gatewayCapabilities, type GatewayAdapter, type GatewayTransport } from '../../gateways';
import { raises } from '../raises';
import type { SecretBox } from '../secret-box';
import type { GatewayHealth } from './health';
import { ruleGateways, tryOrder } from './rules';
import type { CandidateState, RoutingCandidate, RuleGateway } from './trace';

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
  rules: Map<RoutingMethod, RuleGateway[]>;
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

/** A create's routing: the rule, every candidate in the order tried, the usable ones' routes; `refusal` when none is usable. */
export interface RoutingPlan {
  method: RoutingMethod;
  rule: RuleGateway[];
  candidates: RoutingCandidate[];
  routes: Route[];
  reason: string;
  refusal?: Refusal;
}

export interface RoutingExplanation {
  method: RoutingMethod;
  rule: RuleGateway[];
  candidates: RoutingCandidate[];
  chosen: GatewayName | null;
  reason: string;
}

export class GatewayDirectory {
  private readonly routing = new Map<string, EnvironmentRouting>();
  private readonly adapters = new Map<string, { version: number; adapter: GatewayAdapter }>();

  constructor(
    private readonly secrets: SecretBox,
    /** Each gateway's recent outcomes and its circuit breaker, per environment. */
    readonly health: GatewayHealth,
    /** Timeouts, and in production the connector that refuses non-public addresses. */
    private readonly transport: GatewayTransport = {},
    /** Milliseconds now, for the cache's age. */
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The order in which a new create tries the gateways of its method's rule:
   * the weighted pick for this externalId first, then the others in the rule's
   * order. Gateways that cannot take it (not configured, disabled, method not
   * supported) are left out of `routes`; none left is the routing refusal of
   * the first one, which for a rule of one gateway is exactly the 409 it
   * always answered. The breaker is asked only when each gateway's turn comes.
   */
  async plan(em: EntityManager, environmentId: string, method: RoutingMethod, externalId?: string): Promise<RoutingPlan> {
    const routing = await this.load(em, environmentId);
    const rule = routing.rules.get(method) ?? [];
    if (rule.length === 0) {
      return { method, rule, candidates: [], routes: [], reason: 'no rule', refusal: new Refusal('no_routing_rule', {}, `No gateway is configured for ${method} in this environment.`) };
    }
    const { order, reason } = tryOrder(rule, environmentId, method, externalId);
    const paymentMethod = methodOfRoute(method);
    const candidates: RoutingCandidate[] = [];
    const routes: Route[] = [];
    let refusal: Refusal | undefined;
    for (const { gateway, weight } of order) {
      const account = routing.accounts.get(gateway);
      let unusable: { state: CandidateState; refusal: Refusal; reason: string } | null = null;
      if (!account) unusable = { state: 'not_configured', refusal: new Refusal('provider_not_configured', { provider: gateway }), reason: `${gateway} has no account in this environment` };
      else if (!account.enabled) unusable = { state: 'disabled', refusal: new Refusal('provider_disabled', { provider: gateway }), reason: `${gateway} is disabled` };
      else if (!gatewayCapabilities[gateway].methods.includes(paymentMethod)) {
        unusable = { state: 'method_not_supported', refusal: new Refusal('method_not_supported', { provider: gateway, method: paymentMethod }), reason: `${gateway} does not take ${paymentMethod}` };
      }
      if (unusable) {
        refusal ??= unusable.refusal;
        candidates.push({ gateway, weight, state: unusable.state, reason: unusable.reason });
        continue;
      }
      candidates.push({ gateway, weight, state: 'available', reason: 'configured and enabled' });
      routes.push({ gateway, accountId: account!.id, adapter: this.adapterOf(account!) });
    }
    return { method, rule, candidates, routes, reason, ...(routes.length === 0 ? { refusal } : {}) };
  }

  /**
   * The dry run: which gateway would take a create now and why, with each
   * candidate's breaker state. Calls no gateway and takes no probe.
   */
  async explain(em: EntityManager, environmentId: string, method: RoutingMethod, externalId?: string): Promise<RoutingExplanation> {
    const plan = await this.plan(em, environmentId, method, externalId);
    const candidates: RoutingCandidate[] = [];
    for (const candidate of plan.candidates) {
      if (candidate.state !== 'available') {
        candidates.push(candidate);
        continue;
      }
      const breaker = await this.health.state(environmentId, candidate.gateway);
      if (breaker.state === 'open') candidates.push({ ...candidate, state: 'open', reason: `failing: skipped until ${new Date(breaker.openUntil!).toISOString()}` });
      else if (breaker.state === 'half_open') candidates.push({ ...candidate, state: 'half_open', reason: 'cool-down over: the next create probes it' });
      else candidates.push(candidate);
    }
    const rule = plan.rule.map(({ gateway, weight }) => ({ gateway, weight }));
    if (plan.refusal) return { method, rule, candidates, chosen: null, reason: `${plan.refusal.code}: ${plan.refusal.message}` };
    const takes = candidates.find((c) => c.state === 'available' || c.state === 'half_open');
    // Every usable gateway's breaker open: the last one is called anyway (a create is never left with no gateway to try).
    const chosen = takes ?? [...candidates].reverse().find((c) => c.state === 'open')!;
    const skipped = candidates.slice(0, candidates.indexOf(chosen)).filter((c) => c.gateway !== chosen.gateway);
    const why = [
      plan.reason,
      ...skipped.map((c) => `${c.gateway} passed over (${c.state}: ${c.reason})`),
      takes ? `${chosen.gateway} ${chosen.state === 'half_open' ? 'would be probed' : 'takes it'}` : `every gateway is failing: ${chosen.gateway}, the last, is tried anyway`,
    ];
    return { method, rule, candidates, chosen: chosen.gateway, reason: why.join('; ') };
  }

  /** The first gateway a new payment or subscription would try, or the routing 409 that stops it. */
  async resolve(em: EntityManager, environmentId: string, method: RoutingMethod): Promise<Route> {
    const plan = await this.plan(em, environmentId, method);
    if (plan.refusal) throw plan.refusal;
    return plan.routes[0]!;
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
      rules: new Map(rules.map((rule) => [rule.method, ruleGateways(rule)])),
      accounts: new Map(accounts.map((account) => [account.gateway, toRecord(account)])),
    };
    this.routing.set(environmentId, routing);
    return routing;
  }

  private adapterOf(account: AccountRecord): GatewayAdapter {
    const cached = this.adapters.get(account.id);
    if (cached && cached.version === account.version) return cached.adapter;
    if (cached) void cached.adapter.close();
    const adapter = observedGatewayCalls(
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
