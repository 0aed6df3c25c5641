/** Applies a change to a stored subscription under a row lock, writing its events in the same transaction. */
import { LockMode } from '@mikro-orm/core';
import { Subscription } from '../../db/entities/subscription';
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';
import { recordEvents, type DomainEvent } from '../events';

export async function applySubscriptionChange(
  em: EntityManager,
  services: Pick<Services, 'outbox'>,
  subscriptionId: string,
  change: (subscription: Subscription) => DomainEvent[],
): Promise<Subscription> {
  let changed = false;
  const subscription = await em.transactional(async (tx) => {
    const locked = await tx.findOneOrFail(Subscription, { id: subscriptionId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const events = change(locked);
    recordEvents(tx, events);
    changed = events.length > 0;
    return locked;
  });
  if (changed) services.outbox.notify();
  return subscription;
}
