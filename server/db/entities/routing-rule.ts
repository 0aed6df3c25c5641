import { defineEntity, p } from '@mikro-orm/core';
import { GATEWAY_NAMES, ROUTING_METHODS } from '../../contract/enums';
import { Environment } from './environment';

/** Which gateway serves a method (PIX, CARD, SUBSCRIPTION) in an environment. */
export const RoutingRuleSchema = defineEntity({
  name: 'RoutingRule',
  tableName: 'routing_rules',
  primaryKeys: ['environment', 'method'],
  properties: {
    environment: () => p.manyToOne(Environment).primary(),
    method: p.enum(ROUTING_METHODS).primary(),
    gateway: p.enum(GATEWAY_NAMES),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export class RoutingRule extends RoutingRuleSchema.class {}
RoutingRuleSchema.setClass(RoutingRule);
