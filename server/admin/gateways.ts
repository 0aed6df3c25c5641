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
import { ConfigureGatewayInput, EnvironmentRef, ExplainRouteInput, RemoveRouteInput, SetGatewayEnabledInput, SetRouteInput } from './inputs/gateways';
import { explainRoute, routingHealth } from '../domain/routing-views';
import { adminProcedure, adminT as t } from './procedure';

export const gatewaysRouter = t.router({
  /** Creates or replaces a gateway's configuration in an environment. */
  configure: adminProcedure.input(ConfigureGatewayInput).mutation(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'develop');
    const operator = ctx.actor.kind === 'operator';
    const mayChooseHost = ctx.services.config.env !== 'production' || operator;
    return configureGateway(ctx.em, ctx.services, input, { mayChooseHost, anyHost: operator });
  }),

  /** Each gateway's configure form here: its credential fields (never their values) and the base URLs it may be pointed at. */
  forms: adminProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return gatewayForms(ctx.em, ctx.services, input.environmentId, { anyHost: ctx.actor.kind === 'operator' });
  }),

  setEnabled: adminProcedure.input(SetGatewayEnabledInput).mutation(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'develop');
    return setGatewayEnabled(ctx.em, ctx.services, input);
  }),

  list: adminProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listGatewayAccounts(ctx.em, ctx.services, input.environmentId);
  }),
});

export const routingRouter = t.router({
  set: adminProcedure.input(SetRouteInput).mutation(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'develop');
    return setRoute(ctx.em, ctx.services, input);
  }),

  remove: adminProcedure.input(RemoveRouteInput).mutation(async ({ ctx, input }) => {
    // An unknown environment is reported, not answered with `removed: false`.
    await environmentAccess(ctx, input.environmentId, 'develop');
    return removeRoute(ctx.em, ctx.services, input);
  }),

  list: adminProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listRoutes(ctx.em, input.environmentId);
  }),

  /** The dry run: which gateway would take a create now, and why. Calls no gateway. */
  explain: adminProcedure.input(ExplainRouteInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return explainRoute(ctx.em, ctx.services, input);
  }),

  /** Each configured gateway's recent outcomes, latency and circuit breaker. */
  health: adminProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return routingHealth(ctx.em, ctx.services, input.environmentId);
  }),
});
