import { Subscription } from './subscription';
import { oneRowBy } from '../../db/one-row';
import type { EntityManager } from '../../db/orm';
import { isWellFormedId } from '../../contract/ids';
import { raises } from '../raises';
import { FIND_BY_EXTERNAL_ID, FIND_IN_ENVIRONMENT, findByExternalId, findInEnvironment } from '../lookup';

const subscriptionById = oneRowBy(Subscription, ['id', 'environment']);
/** Reads a subscription by id alone, whatever its environment (background work that already holds the id). */
export const storedSubscription = oneRowBy(Subscription, ['id']);
/** Reads a subscription by (externalId, environment id). */
export const subscriptionByExternalId = oneRowBy(Subscription, ['externalId', 'environment']);

/** The contract names no 400 for a subscription id: a malformed one is simply not found. */
export const FIND_SUBSCRIPTION = raises([], FIND_IN_ENVIRONMENT);

export const findSubscription = (em: EntityManager, environmentId: string, id: string): Promise<Subscription> =>
  findInEnvironment(em, subscriptionById, environmentId, id, 'subscription', isWellFormedId('sub', id));

export const FIND_SUBSCRIPTION_BY_EXTERNAL_ID = raises([], FIND_BY_EXTERNAL_ID);

export const findSubscriptionByExternalId = (em: EntityManager, environmentId: string, externalId: string | undefined): Promise<Subscription> =>
  findByExternalId(em, subscriptionByExternalId, environmentId, externalId, 'subscription');
