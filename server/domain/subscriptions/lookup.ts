import { ApiError } from '../../contract/errors';
import { Subscription } from '../../db/entities/subscription';
import type { EntityManager } from '../../db/orm';
import { isWellFormedId } from '../ids';

/** Decision 4: a malformed subscription id is simply not found (the contract names no 400 there). */
export async function findSubscription(em: EntityManager, environmentId: string, id: string): Promise<Subscription> {
  const subscription = isWellFormedId('sub', id) ? await em.findOne(Subscription, { id, environment: environmentId }) : null;
  if (!subscription) throw new ApiError('not_found', {}, `No subscription ${id} in this environment.`);
  return subscription;
}

export async function findSubscriptionByExternalId(em: EntityManager, environmentId: string, externalId: string | undefined): Promise<Subscription> {
  if (!externalId) throw new ApiError('missing_query', {}, 'The externalId query parameter is required.');
  const subscription = await em.findOne(Subscription, { externalId, environment: environmentId });
  if (!subscription) throw new ApiError('not_found', {}, 'No subscription with this externalId in this environment.');
  return subscription;
}
