import { Refusal } from '../refusal';
import { Payment } from './payment';
import { oneRowBy } from '../../db/one-row';
import type { EntityManager } from '../../db/orm';
import { isWellFormedId } from '../../contract/ids';
import { FIND_BY_EXTERNAL_ID, FIND_IN_ENVIRONMENT, findByExternalId, findInEnvironment } from '../lookup';
import { raises } from '../raises';

const paymentById = oneRowBy(Payment, ['id', 'environment']);
/** Reads a payment by (externalId, environment id). */
export const paymentByExternalId = oneRowBy(Payment, ['externalId', 'environment']);

export const FIND_PAYMENT = raises(['invalid_id'], FIND_IN_ENVIRONMENT);

/** A malformed payment id is a 400 `invalid_id`, told apart from a well-formed id that does not exist. */
export function findPayment(em: EntityManager, environmentId: string, id: string): Promise<Payment> {
  if (!isWellFormedId('pay', id)) throw new Refusal('invalid_id', {}, 'Payment ids look like pay_ followed by 24 lower-case letters and digits.');
  return findInEnvironment(em, paymentById, environmentId, id, 'payment');
}

export const FIND_PAYMENT_BY_EXTERNAL_ID = raises([], FIND_BY_EXTERNAL_ID);

export const findPaymentByExternalId = (em: EntityManager, environmentId: string, externalId: string | undefined): Promise<Payment> =>
  findByExternalId(em, paymentByExternalId, environmentId, externalId, 'payment');
