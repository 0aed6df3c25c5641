/**
 * Every change to a stored payment or subscription, whatever caused it
 * (create, sync, cancel, inbound webhook, charge), runs here: under a row
 * lock, in one short transaction that also writes the events the change
 * causes. The lock serializes a webhook, a sync and a cancel racing on one
 * resource, so each sees the other's result and a final status stays final.
 */
import type { EntityClass } from '@mikro-orm/core';
import { oneRowBy, type OneRowReader } from '../db/one-row';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';
import type { DomainEvent } from './events';
import { recordEvents } from './outbox';

const lockedReaders = new Map<EntityClass<object>, OneRowReader<object>>();

/** `select … for update` by id, its SQL written once per entity. */
function lockedById<T extends { id: string }>(entity: EntityClass<T>): OneRowReader<T> {
  let reader = lockedReaders.get(entity);
  if (!reader) {
    reader = oneRowBy(entity as EntityClass<{ id: string }>, ['id'], { forUpdate: true });
    lockedReaders.set(entity, reader);
  }
  return reader as OneRowReader<T>;
}

export type LockedChange<T> = (locked: T, tx: EntityManager) => DomainEvent[] | Promise<DomainEvent[]>;

export async function applyLocked<T extends { id: string }>(
  em: EntityManager,
  services: Pick<Services, 'outbox'>,
  entity: EntityClass<T>,
  id: string,
  change: LockedChange<T>,
): Promise<T> {
  let changed = false;
  const resource = await em.transactional(async (tx) => {
    const locked = await lockedById(entity)(tx, [id]);
    if (!locked) throw new Error(`${entity.name} ${id} vanished before its change`);
    const events = await change(locked, tx);
    recordEvents(tx, events);
    changed = events.length > 0;
    return locked;
  });
  // Wakes the dispatcher only once the events are committed; it also polls, so a missed nudge only delays.
  if (changed) services.outbox.notify();
  return resource;
}
