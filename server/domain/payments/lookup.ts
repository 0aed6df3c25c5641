import { ApiError } from '../../contract/errors';
import { Payment } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import { isWellFormedId } from '../ids';

/** A payment of the caller's environment; another environment's payment is simply not found (spec 5.4). */
export async function findPayment(em: EntityManager, environmentId: string, id: string): Promise<Payment> {
  if (!isWellFormedId('pay', id)) throw new ApiError('invalid_id', {}, 'Payment ids look like pay_ followed by 24 lower-case letters and digits.');
  const payment = await em.findOne(Payment, { id, environment: environmentId });
  if (!payment) throw new ApiError('not_found', {}, `No payment ${id} in this environment.`);
  return payment;
}

export async function findPaymentByExternalId(em: EntityManager, environmentId: string, externalId: string | undefined): Promise<Payment> {
  if (!externalId) throw new ApiError('missing_query', {}, 'The externalId query parameter is required.');
  const payment = await em.findOne(Payment, { externalId, environment: environmentId });
  if (!payment) throw new ApiError('not_found', {}, 'No payment with this externalId in this environment.');
  return payment;
}
