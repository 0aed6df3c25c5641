import { defineEntity, p } from '@mikro-orm/core';
import { newId } from '../../contract/ids';
import { Environment } from './environment';

/**
 * A standardized event (one of the contract's event types), written in the same flush as the
 * state change that caused it (transactional outbox). `data` is the state at
 * the moment of the transition and is never rewritten. `dispatchedAt` is set
 * once the event has been fanned out into one delivery per matching endpoint.
 */
export const OutboxEventSchema = defineEntity({
  name: 'OutboxEvent',
  tableName: 'events',
  indexes: [
    { properties: ['dispatchedAt', 'sequence'] },
    { properties: ['environment', 'resourceId'] },
    // GET /v1/events: one environment's events in sequence order, all types or one.
    { properties: ['environment', 'sequence'] },
    { properties: ['environment', 'type', 'sequence'] },
  ],
  properties: {
    id: p.string().primary().onCreate(() => newId('evt')),
    /** Commit order of events, so deliveries keep the order transitions happened in. */
    sequence: p.bigint('number').autoincrement().unique(),
    environment: () => p.manyToOne(Environment),
    type: p.string().length(64),
    /** The `pay_`/`sub_` id the event is about. */
    resourceId: p.string().length(64),
    data: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    dispatchedAt: p.datetime().nullable(),
  },
});

export class OutboxEvent extends OutboxEventSchema.class {
  /** The envelope `{id, type, createdAt, data}`, exactly as it is delivered. */
  envelope(): { id: string; type: string; createdAt: string; data: Record<string, unknown> } {
    return { id: this.id, type: this.type, createdAt: this.createdAt.toISOString(), data: this.data };
  }
}
OutboxEventSchema.setClass(OutboxEvent);
