/**
 * Reading one entity by equality on a fixed set of properties: the shape of
 * every read by id or by externalId. The SQL is written once, from the
 * entity's metadata, instead of by the query builder on every call (which
 * costs more CPU than the database spends on the query); the row becomes a
 * managed entity through `em.map`, hydrated as `findOne` would hydrate it
 * (refreshing a copy the unit of work already holds).
 * It runs in the unit of work's transaction when there is one.
 */
import type { EntityClass, EntityDictionary } from '@mikro-orm/core';
import type { EntityManager } from './orm';

export type OneRowReader<T> = (em: EntityManager, values: readonly unknown[]) => Promise<T | null>;

/** `forUpdate`: the row is locked until the transaction ends (the caller's unit of work must be in one). */
export function oneRowBy<T extends object>(
  entity: EntityClass<T>,
  properties: readonly (keyof T & string)[],
  options: { forUpdate?: boolean } = {},
): OneRowReader<T> {
  let sql: string | undefined;
  return async (em, values) => {
    sql ??= selectSql(em, entity, properties) + (options.forUpdate ? ' for update' : '');
    // 'get' answers the first row, or undefined when there is none.
    const row = (await em.execute<EntityDictionary<T>>(sql, [...values], 'get')) as EntityDictionary<T> | undefined;
    return row ? em.map(entity, row) : null;
  };
}

function selectSql(em: EntityManager, entity: EntityClass<object>, properties: readonly string[]): string {
  const meta = em.getMetadata().get(entity);
  const quote = (name: string) => em.getPlatform().quoteIdentifier(name);
  const conditions = properties.map((property) => {
    const column = (meta.properties as Record<string, { fieldNames: string[] } | undefined>)[property]?.fieldNames[0];
    if (!column) throw new Error(`${meta.className} has no column for ${property}`);
    return `${quote(column)} = ?`;
  });
  return `select * from ${quote(meta.tableName)} where ${conditions.join(' and ')} limit 1`;
}
