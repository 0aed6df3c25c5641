/** Reading refunds: one of the caller's environment by id or by externalId, the refunds of a payment, and what a payment has refunded or has on its way. */
import { Refusal } from '../refusal';
import { Refund } from './refund';
import { oneRowBy } from '../../db/one-row';
import type { EntityManager } from '../../db/orm';
import { isWellFormedId } from '../../contract/ids';
import { FIND_BY_EXTERNAL_ID, FIND_IN_ENVIRONMENT, findByExternalId, findInEnvironment } from '../lookup';
import { raises } from '../raises';

const refundById = oneRowBy(Refund, ['id', 'environment']);
/** Reads a refund by (externalId, environment id). */
export const refundByExternalId = oneRowBy(Refund, ['externalId', 'environment']);

export const FIND_REFUND = raises(['invalid_id'], FIND_IN_ENVIRONMENT);

/** A malformed refund id is a 400 `invalid_id`, told apart from a well-formed id that does not exist. */
export function findRefund(em: EntityManager, environmentId: string, id: string): Promise<Refund> {
  if (!isWellFormedId('ref', id)) throw new Refusal('invalid_id', {}, 'Refund ids look like ref_ followed by 24 lower-case letters and digits.');
  return findInEnvironment(em, refundById, environmentId, id, 'refund');
}

export const FIND_REFUND_BY_EXTERNAL_ID = raises([], FIND_BY_EXTERNAL_ID);

export const findRefundByExternalId = (em: EntityManager, environmentId: string, externalId: string | undefined): Promise<Refund> =>
  findByExternalId(em, refundByExternalId, environmentId, externalId, 'refund');

/** A payment's refunds, oldest first. */
export const refundsOfPayment = (em: EntityManager, paymentId: string): Promise<Refund[]> =>
  em.find(Refund, { payment: paymentId }, { orderBy: { createdAt: 'asc', id: 'asc' } });

/**
 * Cents of a payment's refunds that are pending or succeeded: what is no
 * longer refundable. Read under the payment's row lock by the create, so
 * two refunds cannot both count on the same money.
 */
export async function reservedAmount(em: EntityManager, paymentId: string): Promise<number> {
  const [row] = await em.execute<{ reserved: string | number | null }[]>(
    `select coalesce(sum(amount), 0) as reserved from refunds where payment_id = ? and status in ('pending', 'succeeded')`,
    [paymentId],
  );
  return Number(row?.reserved ?? 0);
}
