/**
 * Operator procedures for gateway accounts (credentials sealed at rest,
 * enabled flag, base URL) and routing rules, per environment. Every change
 * invalidates this node's routing cache at once.
 */
import { z } from 'zod';
import { TRPCError } from '@trpc/server';
import { GATEWAY_NAMES, ROUTING_METHODS } from '../contract/enums';
import { Environment, GatewayAccount, RoutingRule } from '../db/entities';
import { createGatewayAdapter, GatewayConfigError } from '../gateways';
import type { Services } from '../services';
import { adminProcedure, adminT as t, notFound } from './procedure';

export const inboundWebhookUrl = (services: Services, account: Pick<GatewayAccount, 'id' | 'gateway'>): string =>
  `${services.publicUrl()}/webhooks/${account.gateway}/${account.id}`;

const accountView = (services: Services, account: GatewayAccount) => ({
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

const EnvironmentRef = z.object({ environmentId: z.string() });

export const gatewaysRouter = t.router({
  /** Creates or replaces a gateway's configuration in an environment. */
  configure: adminProcedure
    .input(
      EnvironmentRef.extend({
        gateway: z.enum(GATEWAY_NAMES),
        baseUrl: z.url({ protocol: /^https?$/ }),
        credentials: z.record(z.string(), z.unknown()),
        enabled: z.boolean().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const environment = await ctx.em.findOne(Environment, { id: input.environmentId });
      if (!environment) throw notFound('Environment', input.environmentId);
      try {
        // Building an adapter validates the credentials' shape for that gateway.
        await createGatewayAdapter(input.gateway, { baseUrl: input.baseUrl, credentials: input.credentials }).close();
      } catch (error) {
        if (error instanceof GatewayConfigError) throw new TRPCError({ code: 'BAD_REQUEST', message: error.message });
        throw error;
      }
      let account = await ctx.em.findOne(GatewayAccount, { environment, gateway: input.gateway });
      const sealed = ctx.services.secrets.sealJson(input.credentials);
      if (account) {
        account.baseUrl = input.baseUrl;
        account.credentialsSealed = sealed;
        if (input.enabled !== undefined) account.enabled = input.enabled;
        account.updatedAt = new Date();
      } else {
        account = ctx.em.create(GatewayAccount, {
          environment,
          gateway: input.gateway,
          baseUrl: input.baseUrl,
          credentialsSealed: sealed,
          enabled: input.enabled ?? true,
        });
      }
      await ctx.em.flush();
      ctx.services.gateways.invalidate(environment.id);
      return accountView(ctx.services, account);
    }),

  setEnabled: adminProcedure
    .input(EnvironmentRef.extend({ gateway: z.enum(GATEWAY_NAMES), enabled: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      const account = await ctx.em.findOne(GatewayAccount, { environment: input.environmentId, gateway: input.gateway });
      if (!account) throw notFound(`Gateway ${input.gateway} in environment`, input.environmentId);
      account.enabled = input.enabled;
      account.updatedAt = new Date();
      await ctx.em.flush();
      ctx.services.gateways.invalidate(input.environmentId);
      return accountView(ctx.services, account);
    }),

  list: adminProcedure.input(EnvironmentRef).query(async ({ ctx, input }) =>
    (await ctx.em.find(GatewayAccount, { environment: input.environmentId }, { orderBy: { gateway: 'asc' } })).map((a) => accountView(ctx.services, a)),
  ),
});

export const routingRouter = t.router({
  set: adminProcedure
    .input(EnvironmentRef.extend({ method: z.enum(ROUTING_METHODS), gateway: z.enum(GATEWAY_NAMES) }))
    .mutation(async ({ ctx, input }) => {
      const environment = await ctx.em.findOne(Environment, { id: input.environmentId });
      if (!environment) throw notFound('Environment', input.environmentId);
      const rule = await ctx.em.upsert(RoutingRule, { environment, method: input.method, gateway: input.gateway, updatedAt: new Date() });
      ctx.services.gateways.invalidate(environment.id);
      return { environmentId: environment.id, method: rule.method, gateway: rule.gateway };
    }),

  remove: adminProcedure
    .input(EnvironmentRef.extend({ method: z.enum(ROUTING_METHODS) }))
    .mutation(async ({ ctx, input }) => {
      const removed = await ctx.em.nativeDelete(RoutingRule, { environment: input.environmentId, method: input.method });
      ctx.services.gateways.invalidate(input.environmentId);
      return { environmentId: input.environmentId, method: input.method, removed: removed > 0 };
    }),

  list: adminProcedure.input(EnvironmentRef).query(async ({ ctx, input }) =>
    (await ctx.em.find(RoutingRule, { environment: input.environmentId }, { orderBy: { method: 'asc' } })).map((rule) => ({
      environmentId: input.environmentId,
      method: rule.method,
      gateway: rule.gateway,
    })),
  ),
});
