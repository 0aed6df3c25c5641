/** Reading one payment or subscription of the caller's environment, by id or by the merchant's externalId. */
import type { EntityClass } from '@mikro-orm/core';
import { ApiError } from '../contract/errors';
import type { EntityManager } from '../db/orm';
import { raises } from './raises';

export const FIND_IN_ENVIRONMENT = raises(['not_found']);

/** An id that cannot exist (`wellFormed` false) is not found without asking the database. */
export async function findInEnvironment<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  environmentId: string,
  id: string,
  noun: string,
  wellFormed = true,
): Promise<T> {
  const found = wellFormed ? await em.findOne(entity, { id, environment: environmentId } as never) : null;
  if (!found) throw new ApiError('not_found', {}, `No ${noun} ${id} in this environment.`);
  return found;
}

export const FIND_BY_EXTERNAL_ID = raises(['missing_query', 'not_found']);

export async function findByExternalId<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  environmentId: string,
  externalId: string | undefined,
  noun: string,
): Promise<T> {
  if (!externalId) throw new ApiError('missing_query', {}, 'The externalId query parameter is required.');
  const found = await em.findOne(entity, { externalId, environment: environmentId } as never);
  if (!found) throw new ApiError('not_found', {}, `No ${noun} with this externalId in this environment.`);
  return found;
}
