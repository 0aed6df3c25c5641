/**
 * The commit of a registration: the gateway accepted the create, so the row
 * takes the gateway's answer, its events enter the outbox and (payments) the
 * month's usage is counted, all in ONE statement that commits on its own.
 *
 * No row lock is needed: the update only matches while the row has no
 * gateway reference, and nothing else writes such a row (inbound webhooks,
 * sync and cancel find a resource by, or need, its gateway reference). So
 * the state the events were computed from is the state being replaced. When
 * the update matches nothing, another request holding a later lease
 * registered the row first: its events stand, these are dropped, and the
 * registered row is the answer.
 */
import type { EntityClass } from '@mikro-orm/core';
import { changedColumns, columnReadings, tableOf } from '../../db/rows';
import type { EntityManager } from '../../db/orm';
import { OutboxEvent } from '../../db/entities';
import type { Services } from '../../services';
import type { DomainEvent } from '../events';
import { newId } from '../../contract/ids';
import { LostWriteError } from '../../db/unreachable';
import type { GatewayResource } from './columns';

/** Another insert of the same statement, made only when the row is registered: `select … from registered` (the registered row's `id`). */
export interface CompanionInsert {
  sql: string;
  params: unknown[];
}

export interface RegistrationCommit<T> {
  entity: EntityClass<T>;
  /** Applies the gateway's answer to the resource in memory and returns the events it causes. */
  apply(resource: T): DomainEvent[];
  /** What else the registration records, in the same statement. */
  companions?(resource: T): CompanionInsert[];
}

const EVENT_COLUMNS = ['id', 'environment', 'type', 'resourceId', 'data', 'createdAt'] as const;

function outboxInsert(em: EntityManager, events: DomainEvent[]): CompanionInsert {
  const outbox = tableOf(em, OutboxEvent);
  const at = new Date();
  const rows = events.map(() => '(?, ?, ?, ?, ?::jsonb, ?::timestamptz)').join(', ');
  return {
    sql: `insert into ${outbox.table} (${EVENT_COLUMNS.map(outbox.column).join(', ')}) select e.* from registered, (values ${rows}) as e(id, environment_id, type, resource_id, data, created_at)`,
    params: events.flatMap((event) => [newId('evt'), event.environmentId, event.type, event.resourceId, JSON.stringify(event.data), at]),
  };
}

/**
 * Registers the resource with the gateway's answer. Returns the resource as
 * registered: this one, or the row another request registered first.
 */
export async function commitRegistration<T extends GatewayResource>(
  em: EntityManager,
  services: Pick<Services, 'outbox'>,
  commit: RegistrationCommit<T>,
  resource: T,
): Promise<{ resource: T; registered: boolean }> {
  const before = columnReadings(em, resource);
  resource.pendingRequestSealed = null;
  resource.registrationLeaseUntil = null;
  const events = commit.apply(resource);
  const changed = changedColumns(em, resource, before);
  const table = tableOf(em, commit.entity as EntityClass<object>);
  const inserts = [...(commit.companions?.(resource) ?? []), ...(events.length > 0 ? [outboxInsert(em, events)] : [])];
  const sql =
    `with registered as (update ${table.table} set ${changed.names.map((name) => `${name} = ?`).join(', ')} ` +
    `where ${table.column('id')} = ? and ${table.column('gatewayRef')} is null returning ${table.column('id')} as id)` +
    inserts.map((insert, index) => `, companion_${index} as (${insert.sql})`).join('') +
    ` select count(*)::int as registered from registered`;
  const params = [...changed.values, resource.id, ...inserts.flatMap((insert) => insert.params)];
  const [row] = await em.execute<{ registered: number }[]>(sql, params);
  if (Number(row?.registered) === 1) {
    // Wakes the dispatcher once the events are committed; it also polls, so a missed nudge only delays.
    if (events.length > 0) services.outbox.notify();
    return { resource, registered: true };
  }
  const winner = await em.fork().findOne(commit.entity, { id: resource.id } as never);
  // Its insert committed without waiting for the disk or the standby (create-once.ts, insertWithLease), and a crash or a
  // failover lost it after the gateway call. A retry with the same externalId inserts it again and calls the gateway
  // with the same idempotency key, which answers the resource it already made: so 503 and retry, not a 500.
  if (!winner) throw new LostWriteError(`${commit.entity.name} ${resource.id} is gone before its registration: the database lost its insert (a crash or a failover)`);
  return { resource: winner, registered: false };
}
