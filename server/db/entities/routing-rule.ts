import { defineEntity, p } from '@mikro-orm/core';
import { GATEWAY_NAMES, ROUTING_METHODS, type GatewayName } from '../../contract/enums';
import { Environment } from './environment';

/**
 * Which gateways serve a method (PIX, CARD, SUBSCRIPTION) in an environment:
 * an ordered list (the fallback order) with optional weights (decision 21).
 */
export const RoutingRuleSchema = defineEntity({
  name: 'RoutingRule',
  tableName: 'routing_rules',
  primaryKeys: ['environment', 'method'],
  properties: {
    environment: () => p.manyToOne(Environment).primary(),
    method: p.enum(ROUTING_METHODS).primary(),
    /** The list's first gateway (the primary), kept for readers of one gateway. */
    gateway: p.enum(GATEWAY_NAMES),
    /** domain/routing/trace.ts `RuleGateway[]`, spelled out here: storage does not import the domain. */
    gateways: p.json<{ gateway: GatewayName; weight: number | null }[]>(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export class RoutingRule extends RoutingRuleSchema.class {}
RoutingRuleSchema.setClass(RoutingRule);
