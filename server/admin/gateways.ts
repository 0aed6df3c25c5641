import { z } from 'zod';
import { TEXT_LIMITS } from '../contract/limits';
import { RecordId, text } from '../contract/schemas/text';
import { GATEWAY_NAMES, ROUTING_METHODS } from '../contract/enums';
import { configureGateway, listGatewayAccounts, listRoutes, removeRoute, setGatewayEnabled, setRoute } from '../domain/gateway-accounts';
import { loadEnvironment } from '../domain/tenancy';
import { adminProcedure, adminT as t } from './procedure';

const EnvironmentRef = z.strictObject({ environmentId: RecordId });

export const gatewaysRouter = t.router({
  /** Creates or replaces a gateway's configuration in an environment. */
  configure: adminProcedure
    .input(
      EnvironmentRef.extend({
        gateway: z.enum(GATEWAY_NAMES),
        baseUrl: text({ min: 1, max: TEXT_LIMITS.url }).pipe(z.url({ protocol: /^https?$/ })),
        credentials: z.record(RecordId, z.unknown()),
        enabled: z.boolean().optional(),
      }),
    )
    .mutation(({ ctx, input }) => configureGateway(ctx.em, ctx.services, input)),

  setEnabled: adminProcedure
    .input(EnvironmentRef.extend({ gateway: z.enum(GATEWAY_NAMES), enabled: z.boolean() }))
    .mutation(({ ctx, input }) => setGatewayEnabled(ctx.em, ctx.services, input)),

  list: adminProcedure.input(EnvironmentRef).query(({ ctx, input }) => listGatewayAccounts(ctx.em, ctx.services, input.environmentId)),
});

export const routingRouter = t.router({
  set: adminProcedure
    .input(EnvironmentRef.extend({ method: z.enum(ROUTING_METHODS), gateway: z.enum(GATEWAY_NAMES) }))
    .mutation(({ ctx, input }) => setRoute(ctx.em, ctx.services, input)),

  remove: adminProcedure
    .input(EnvironmentRef.extend({ method: z.enum(ROUTING_METHODS) }))
    .mutation(async ({ ctx, input }) => {
      // An unknown environment is reported, not answered with `removed: false`.
      await loadEnvironment(ctx.em, input.environmentId);
      return removeRoute(ctx.em, ctx.services, input);
    }),

  list: adminProcedure.input(EnvironmentRef).query(({ ctx, input }) => listRoutes(ctx.em, input.environmentId)),
});
