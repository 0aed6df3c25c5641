/**
 * Gateway accounts and routing rules of an environment: developers change
 * them, every member reads them (credentials are write-only: never answered).
 * In production only a platform operator chooses where a gateway is reached
 * (its base URL): merchants choose credentials, not hosts. Elsewhere
 * merchants choose among the gateway's known base URLs (gateways.forms);
 * only an operator types another.
 */
import { configureGateway, gatewayForms, listGatewayAccounts, listRoutes, removeRoute, setGatewayEnabled, setRoute } from '../domain/gateway-accounts';
import { environmentAccess } from './access';
import { ConfigureGatewayInput, EnvironmentRef, ExplainRouteInput, RemoveRouteInput, SetGatewayEnabledInput, SetRouteInput } from '../contract/operator/gateways';
import { explainRoute, routingHealth } from '../domain/routing/views';
import { operatorProcedure, operatorT as t } from './procedure';
import { gatewayBefore, routeBefore } from '../domain/audit/snapshots';
import { audited, scopeOf } from './audited';

export const gatewaysRouter = t.router({
  /** Creates or replaces a gateway's configuration in an environment. */
  configure: operatorProcedure.input(ConfigureGatewayInput).mutation(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    const operator = ctx.actor.kind === 'operator';
    const mayChooseHost = ctx.services.config.env !== 'production' || operator;
    return audited(ctx, async (em, audit) => {
      const before = await gatewayBefore(em, ctx.services, input.environmentId, input.gateway);
      const after = await configureGateway(em, ctx.services, input, { mayChooseHost, anyHost: operator });
      // The credentials as given: recordAudit keeps only a set/changed marker per field.
      audit({ action: 'gateway.configured', ...scopeOf(environment), target: { type: 'gateway_account', id: after.id }, before, after: { ...after, credentials: input.credentials } });
      return after;
    });
  }),

  /** Each gateway's configure form here: its credential fields (never their values) and the base URLs it may be pointed at. */
  forms: operatorProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return gatewayForms(ctx.em, ctx.services, input.environmentId, { anyHost: ctx.actor.kind === 'operator' });
  }),

  setEnabled: operatorProcedure.input(SetGatewayEnabledInput).mutation(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    return audited(ctx, async (em, audit) => {
      const before = await gatewayBefore(em, ctx.services, input.environmentId, input.gateway);
      const after = await setGatewayEnabled(em, ctx.services, input);
      audit({ action: input.enabled ? 'gateway.enabled' : 'gateway.disabled', ...scopeOf(environment), target: { type: 'gateway_account', id: after.id }, before: before && { ...before, credentials: 'set' }, after });
      return after;
    });
  }),

  list: operatorProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listGatewayAccounts(ctx.em, ctx.services, input.environmentId);
  }),
});

export const routingRouter = t.router({
  set: operatorProcedure.input(SetRouteInput).mutation(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    return audited(ctx, async (em, audit) => {
      const before = await routeBefore(em, input.environmentId, input.method);
      const after = await setRoute(em, ctx.services, input);
      audit({ action: before ? 'routing.rule.updated' : 'routing.rule.created', ...scopeOf(environment), target: { type: 'routing_rule', id: input.method }, before, after });
      return after;
    });
  }),

  remove: operatorProcedure.input(RemoveRouteInput).mutation(async ({ ctx, input }) => {
    // An unknown environment is reported, not answered with `removed: false`.
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    return audited(ctx, async (em, audit) => {
      const before = await routeBefore(em, input.environmentId, input.method);
      const answer = await removeRoute(em, ctx.services, input);
      audit({ action: 'routing.rule.removed', ...scopeOf(environment), target: { type: 'routing_rule', id: input.method }, before, after: null });
      return answer;
    });
  }),

  list: operatorProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listRoutes(ctx.em, input.environmentId);
  }),

  /** The dry run: which gateway would take a create now, and why. Calls no gateway. */
  explain: operatorProcedure.input(ExplainRouteInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return explainRoute(ctx.em, ctx.services, input);
  }),

  /** Each configured gateway's recent outcomes, latency and circuit breaker. */
  health: operatorProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return routingHealth(ctx.em, ctx.services, input.environmentId);
  }),
});
