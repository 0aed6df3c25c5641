/** Reading one payment or subscription of the caller's environment, by id or by the merchant's externalId. */
import { Refusal } from './refusal';
import type { OneRowReader } from '../db/one-row';
import type { EntityManager } from '../db/orm';
import { raises } from './raises';

export const FIND_IN_ENVIRONMENT = raises(['not_found']);

/** `byIdInEnvironment` reads by (id, environment). An id that cannot exist (`wellFormed` false) is not found without asking the database. */
export async function findInEnvironment<T>(
  em: EntityManager,
  byIdInEnvironment: OneRowReader<T>,
  environmentId: string,
  id: string,
  noun: string,
  wellFormed = true,
): Promise<T> {
  const found = wellFormed ? await byIdInEnvironment(em, [id, environmentId]) : null;
  if (!found) throw new Refusal('not_found', {}, `No ${noun} ${id} in this environment.`);
  return found;
}

export const FIND_BY_EXTERNAL_ID = raises(['missing_query', 'not_found']);

/** `byExternalIdInEnvironment` reads by (externalId, environment). */
export async function findByExternalId<T>(
  em: EntityManager,
  byExternalIdInEnvironment: OneRowReader<T>,
  environmentId: string,
  externalId: string | undefined,
  noun: string,
): Promise<T> {
  if (!externalId) throw new Refusal('missing_query', {}, 'The externalId query parameter is required.');
  const found = await byExternalIdInEnvironment(em, [externalId, environmentId]);
  if (!found) throw new Refusal('not_found', {}, `No ${noun} with this externalId in this environment.`);
  return found;
}
