/** Inputs of the gateway-account and routing procedures. Browser-safe (zod and the contract only). */
import { z } from 'zod';
import { GATEWAY_NAMES, ROUTING_METHODS } from '../enums';
import { TEXT_LIMITS } from '../limits';
import { RecordId, text } from '../schemas/text';

export const EnvironmentRef = z.strictObject({ environmentId: RecordId });

export const ConfigureGatewayInput = EnvironmentRef.extend({
  gateway: z.enum(GATEWAY_NAMES),
  baseUrl: text({ min: 1, max: TEXT_LIMITS.url }).pipe(z.url({ protocol: /^https?$/ })),
  /**
   * Write-only: sealed at rest and never shown again. The gateway's fields
   * (contract/gateway-credentials.ts); one left out or blank keeps its
   * stored value, so rotating one secret sends that one only.
   */
  credentials: z.record(RecordId, z.unknown()),
  enabled: z.boolean().optional(),
});
export const SetGatewayEnabledInput = EnvironmentRef.extend({ gateway: z.enum(GATEWAY_NAMES), enabled: z.boolean() });

/** One gateway of a rule; its place in the list is its fallback order. */
export const RuleGatewayInput = z.strictObject({ gateway: z.enum(GATEWAY_NAMES), weight: z.number().int().min(0).max(100).nullable().optional() });

/**
 * A rule: `gateways`, an ordered list (the first is the primary, the others its
 * fallbacks in order) with optional weights that split new creates; or the
 * older `gateway`, a list of one. Weights are all or none: whole numbers 0-100
 * summing to 100 (0 keeps a gateway as a fallback only).
 */
export const SetRouteInput = EnvironmentRef.extend({
  method: z.enum(ROUTING_METHODS),
  gateway: z.enum(GATEWAY_NAMES).optional(),
  gateways: z.array(RuleGatewayInput).min(1).max(GATEWAY_NAMES.length).optional(),
}).superRefine((input, ctx) => {
  if ((input.gateway === undefined) === (input.gateways === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['gateways'], message: 'give either gateways (an ordered list) or gateway (one), not both' });
    return;
  }
  const list = input.gateways ?? [];
  const names = list.map((g) => g.gateway);
  if (new Set(names).size !== names.length) ctx.addIssue({ code: 'custom', path: ['gateways'], message: 'each gateway may appear once in a rule' });
  const weights = list.map((g) => g.weight ?? null);
  if (weights.some((w) => w !== null)) {
    if (weights.some((w) => w === null)) ctx.addIssue({ code: 'custom', path: ['gateways'], message: 'weights are all or none: give every gateway of the rule a weight' });
    else if (weights.reduce((sum: number, w) => sum + w!, 0) !== 100) ctx.addIssue({ code: 'custom', path: ['gateways'], message: `weights must add up to 100 (these add up to ${weights.reduce((sum: number, w) => sum + w!, 0)})` });
  }
});
export const ExplainRouteInput = EnvironmentRef.extend({ method: z.enum(ROUTING_METHODS), externalId: text({ min: 1, max: TEXT_LIMITS.externalId }).optional() });
export const PaymentTraceInput = EnvironmentRef.extend({ paymentId: RecordId });
export const SubscriptionTraceInput = EnvironmentRef.extend({ subscriptionId: RecordId });
export const RemoveRouteInput = EnvironmentRef.extend({ method: z.enum(ROUTING_METHODS) });
