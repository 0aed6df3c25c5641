/**
 * Fan-out: each committed event not yet dispatched becomes one `PENDING`
 * delivery per enabled endpoint of its environment that takes its type, and
 * is marked dispatched in the same transaction, so an event is fanned out
 * exactly once even with several instances. The rows are locked with a
 * blocking `FOR UPDATE` in sequence order (not `SKIP LOCKED`): instances take
 * turns, so deliveries appear in event order and none overtakes an earlier one.
 */
import type { EntityManager } from '../db/orm';
import { OutboxEvent, WebhookDelivery, WebhookEndpoint } from '../db/entities';

const BATCH = 100;

interface EventRow {
  id: string;
  sequence: string | number;
  environment_id: string;
  type: string;
}

/** Fans out one batch; returns how many events it took. `fannedOut` hears their ids once committed. */
export async function fanOutBatch(em: EntityManager, batch = BATCH, fannedOut?: (eventIds: string[]) => void): Promise<number> {
  const ids = await em.transactional(async (tx) => {
    // Not waiting for the disk: a delivery is claimed (and sent) only by a later commit that does wait, which carries this
    // one with it; if the database loses this commit in a crash, the events are simply fanned out again, all or none.
    await tx.execute('set local synchronous_commit to off');
    const events = await tx.execute<EventRow[]>(
      `select id, sequence, environment_id, type from events where dispatched_at is null order by sequence limit ? for update`,
      [batch],
    );
    if (events.length === 0) return [];
    const environmentIds = [...new Set(events.map((e) => e.environment_id))];
    const endpoints = await tx.find(WebhookEndpoint, { environment: { $in: environmentIds }, enabled: true }, { orderBy: { createdAt: 'asc' } });
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (endpoint.environment.id !== event.environment_id || !endpoint.receives(event.type)) continue;
        tx.create(WebhookDelivery, {
          endpoint,
          event: event.id,
          environment: event.environment_id,
          eventType: event.type,
          eventSequence: Number(event.sequence),
        });
      }
    }
    await tx.flush();
    await tx.nativeUpdate(OutboxEvent, { id: { $in: events.map((e) => e.id) } }, { dispatchedAt: new Date() });
    return events.map((e) => e.id);
  });
  if (ids.length > 0) fannedOut?.(ids);
  return ids.length;
}

/** Fans out everything committed so far. */
export async function fanOutAll(fork: () => EntityManager, fannedOut?: (eventIds: string[]) => void): Promise<number> {
  let total = 0;
  for (;;) {
    const taken = await fanOutBatch(fork(), BATCH, fannedOut);
    total += taken;
    if (taken < BATCH) return total;
  }
}
