/**
 * An entity's columns as SQL values, read from its metadata: what the create
 * path needs to write a new row, and later only its changed columns, inside
 * statements it composes itself (domain/registration/). Going through the
 * unit of work would cost a transaction of its own for each write (begin,
 * statement, commit); a composed statement commits on its own, in one round
 * trip. Like one-row.ts, the statement's text comes from the metadata, so a
 * column added to an entity is written without touching this file.
 */
import type { EntityClass, EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from './orm';

export interface Columns {
  /** Quoted column names. */
  names: string[];
  values: unknown[];
}

type Row = Record<string, unknown>;

function scalarProperties(em: EntityManager, entity: object): EntityProperty[] {
  const meta = em.getMetadata().get(entity.constructor as EntityClass<object>);
  return meta.props.filter((prop) => (prop.kind === 'scalar' || prop.kind === 'm:1') && prop.fieldNames?.length === 1 && prop.persist !== false);
}

/** The value as the database stores it: a reference becomes its key, a JSON property its text. */
function databaseValue(prop: EntityProperty, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (prop.kind === 'm:1') return (value as { id: string }).id;
  if (String(prop.type).toLowerCase().includes('json')) return JSON.stringify(value);
  return value;
}

/** A value's identity for comparing two readings of one column. */
const sameness = (value: unknown): string => (value instanceof Date ? value.toISOString() : JSON.stringify(value ?? null));

const quote = (em: EntityManager, name: string) => em.getPlatform().quoteIdentifier(name);

/**
 * Every column of a new row. The properties' `onCreate` fill what is still
 * unset (as the unit of work would at flush); `sequence`-like columns the
 * database generates are left out while unset.
 */
export function newRowColumns(em: EntityManager, entity: object): Columns {
  const row = entity as Row;
  const names: string[] = [];
  const values: unknown[] = [];
  for (const prop of scalarProperties(em, entity)) {
    if (row[prop.name] === undefined && prop.onCreate) row[prop.name] = prop.onCreate(entity, em);
    if (row[prop.name] === undefined) continue;
    names.push(quote(em, prop.fieldNames[0]!));
    values.push(databaseValue(prop, row[prop.name]));
  }
  return { names, values };
}

/** The columns' readings now, to find later which ones a change touched. */
export function columnReadings(em: EntityManager, entity: object): Map<string, string> {
  const row = entity as Row;
  return new Map(scalarProperties(em, entity).map((prop) => [prop.name, sameness(row[prop.name])]));
}

/** The columns that differ from `before`, plus those the properties' `onUpdate` keep (an update time). */
export function changedColumns(em: EntityManager, entity: object, before: Map<string, string>): Columns {
  const row = entity as Row;
  const names: string[] = [];
  const values: unknown[] = [];
  for (const prop of scalarProperties(em, entity)) {
    if (prop.onUpdate) row[prop.name] = prop.onUpdate(entity, em);
    else if (before.get(prop.name) === sameness(row[prop.name])) continue;
    names.push(quote(em, prop.fieldNames[0]!));
    values.push(databaseValue(prop, row[prop.name]));
  }
  return { names, values };
}

/** The entity's table and a column's quoted name, for statements composed around these columns. */
export function tableOf(em: EntityManager, entity: EntityClass<object>): { table: string; column(property: string): string } {
  const meta = em.getMetadata().get(entity);
  return {
    table: quote(em, meta.tableName),
    column(property) {
      const field = (meta.properties as Record<string, { fieldNames: string[] } | undefined>)[property]?.fieldNames[0];
      if (!field) throw new Error(`${meta.className} has no column for ${property}`);
      return quote(em, field);
    },
  };
}
