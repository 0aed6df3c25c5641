import { defineEntity, p } from '@mikro-orm/core';
import { GatewayAccount } from './gateway-account';

/** A gateway event already applied; the unique key makes a redelivery a no-op. */
export const InboundWebhookSchema = defineEntity({
  name: 'InboundWebhook',
  tableName: 'inbound_webhooks',
  uniques: [{ properties: ['account', 'eventId'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    account: () => p.manyToOne(GatewayAccount),
    eventId: p.string().length(255),
    kind: p.string().length(64),
    receivedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class InboundWebhook extends InboundWebhookSchema.class {}
InboundWebhookSchema.setClass(InboundWebhook);
