import type { EntityManager } from '../db/orm';
import { OutboxEvent } from '../db/entities/outbox-event';

/** An event a domain transition caused, before it is written to the outbox. */
export interface DomainEvent {
  type: string;
  resourceId: string;
  environmentId: string;
  data: Record<string, unknown>;
}

/** Adds the events to the unit of work: they commit with the state change that caused them, or not at all. */
export function recordEvents(em: EntityManager, events: DomainEvent[]): void {
  for (const event of events) {
    em.create(OutboxEvent, { environment: event.environmentId, type: event.type, resourceId: event.resourceId, data: event.data });
  }
}
