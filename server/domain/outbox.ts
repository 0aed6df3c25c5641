import { OutboxEvent } from '../db/entities/outbox-event';
import type { EntityManager } from '../db/orm';
import type { DomainEvent } from './events';

/** Adds the events to the unit of work: they commit with the state change that caused them, or not at all. */
export function recordEvents(em: EntityManager, events: DomainEvent[]): void {
  for (const event of events) {
    em.create(OutboxEvent, { environment: event.environmentId, type: event.type, resourceId: event.resourceId, data: event.data });
  }
}
