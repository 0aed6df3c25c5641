/**
 * The refunds a simulator holds, whatever its wire words: which payment each
 * gives money back from, how much is still refundable, the refund a repeated
 * request finds again, and when refunds settle. Each gateway keeps its own
 * wire object in `wire` and says how a state change looks and notifies.
 */
import { randomBytes } from 'node:crypto';
import type { RefundSettlement } from '../../contract/sandbox-controls';
import { SimControlError } from './server';

export type SimRefundState = 'pending' | 'succeeded' | 'failed';

export interface SimRefund<W> {
  /** The gateway's id for it: what its GET and the controls name. */
  ref: string;
  /** Other names the controls accept (a Pix devolução's rtrId). */
  aliases: string[];
  paymentRef: string;
  amount: number;
  state: SimRefundState;
  wire: W;
}

/** Why a gateway declines a refund; each simulator answers it in its own words. */
export type RefundRefusal = 'not_paid' | 'fully_refunded' | 'exceeds_refundable' | 'partial_not_supported';

/** A refund request checked against its payment: paid, and the amount within what pending and settled refunds left. */
export function refundRefusal(options: { paid: boolean; paymentAmount: number; refundable: number; amount: number; fullOnly?: boolean }): RefundRefusal | null {
  if (!options.paid) return 'not_paid';
  if (options.refundable <= 0) return 'fully_refunded';
  if (options.amount > options.refundable) return 'exceeds_refundable';
  if (options.fullOnly && options.amount !== options.paymentAmount) return 'partial_not_supported';
  return null;
}

export class RefundLedger<W> {
  /** `later`: pending until a control settles or fails it; `at-once`: the refund call answers it settled. */
  settlement: RefundSettlement = 'later';
  private readonly byRef = new Map<string, SimRefund<W>>();
  private readonly byAlias = new Map<string, SimRefund<W>[]>();
  private readonly byPayment = new Map<string, SimRefund<W>[]>();
  /** The refund each idempotency scope (`<scope>:<key>`) created. */
  private readonly byKey = new Map<string, SimRefund<W>>();

  /** The refund a repeated request (same key in the same scope) already created. */
  replayed(scopeKey: string): SimRefund<W> | undefined {
    return this.byKey.get(scopeKey);
  }

  get(ref: string): SimRefund<W> | undefined {
    return this.byRef.get(ref);
  }

  /** What can still be refunded: neither pending nor settled refunds may exceed the payment. */
  refundable(paymentRef: string, paymentAmount: number): number {
    const taken = (this.byPayment.get(paymentRef) ?? []).filter((refund) => refund.state !== 'failed').reduce((sum, refund) => sum + refund.amount, 0);
    return paymentAmount - taken;
  }

  add(refund: SimRefund<W>, scopeKey: string): SimRefund<W> {
    this.byRef.set(refund.ref, refund);
    this.byKey.set(scopeKey, refund);
    for (const alias of refund.aliases) this.byAlias.set(alias, [...(this.byAlias.get(alias) ?? []), refund]);
    this.byPayment.set(refund.paymentRef, [...(this.byPayment.get(refund.paymentRef) ?? []), refund]);
    return refund;
  }

  /** The refund a control names, by the gateway's id or an alias; 404 unknown, 409 when an alias is ambiguous. */
  named(ref: string): SimRefund<W> {
    const direct = this.byRef.get(ref);
    if (direct) return direct;
    const aliased = this.byAlias.get(ref) ?? [];
    if (aliased.length === 1) return aliased[0]!;
    if (aliased.length > 1) throw new SimControlError(409, `${ref} names several refunds; use the gateway's refund id`);
    throw new SimControlError(404, `unknown refund ${ref}`);
  }

  /** A refund a control settles or fails must still be pending. */
  pending(ref: string): SimRefund<W> {
    const refund = this.named(ref);
    if (refund.state !== 'pending') throw new SimControlError(409, `refund is ${refund.state}`);
    return refund;
  }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomAlnum(length: number): string {
  const bytes = randomBytes(length);
  let text = '';
  for (const byte of bytes) text += ALNUM[byte % ALNUM.length];
  return text;
}

/** `yyyyMMddHHmm` in UTC, as the Pix ids carry the moment of the transaction. */
const minuteStamp = (at: Date) => at.toISOString().slice(0, 16).replace(/[-T:]/g, '');

/**
 * A Pix transaction id of the SPI: `E` (a payment's end-to-end id) or `D` (a
 * devolução's rtrId), the participant's 8-digit ISPB, `yyyyMMddHHmm`, and 11
 * letters or digits: 32 characters.
 */
export function pixTransactionId(kind: 'E' | 'D', ispb: string, at = new Date()): string {
  if (!/^\d{8}$/.test(ispb)) throw new RangeError('ISPB must be 8 digits');
  return `${kind}${ispb}${minuteStamp(at)}${randomAlnum(11)}`;
}

/** The id a client chooses for a devolução: letters and digits, 1 to 35 (the Pix API's rule). */
export const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;
