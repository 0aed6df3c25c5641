/**
 * Pix refunds in the manner of the Pix API's devolução (gateway_a and
 * gateway_b): a devolução is named by the paid Pix's end-to-end id and an id
 * its client chooses, so a repeated request names the same devolução and the
 * gateway answers the one it already has.
 */
import { createHash } from 'node:crypto';

/** The Pix API's rule for a devolução id: 1 to 35 letters or digits. */
export const DEVOLUCAO_ID_LENGTH = 35;

/**
 * The devolução id for a refund's idempotency key: 35 hex digits of its
 * SHA-256, so every retry of one refund names the same devolução whatever the
 * key's characters, and it is never taken for a card refund's `re_`/`est_` id.
 */
export const devolucaoId = (idempotencyKey: string): string =>
  createHash('sha256').update(idempotencyKey, 'utf8').digest('hex').slice(0, DEVOLUCAO_ID_LENGTH);

/** How many paid Pix an adapter remembers the end-to-end id of. */
const REMEMBERED = 10_000;

/**
 * The end-to-end ids of paid Pix this adapter has seen (in reads and
 * notifications), so a devolução usually needs no read of its payment first:
 * one call at the gateway. An end-to-end id never changes once the Pix is
 * paid, so a remembered one is never stale; a miss reads the payment.
 * Bounded: the oldest are forgotten first.
 */
export class EndToEndIds {
  private readonly ids = new Map<string, string>();

  remember(paymentRef: string, endToEndId: string | null | undefined): void {
    if (!endToEndId || this.ids.has(paymentRef)) return;
    if (this.ids.size >= REMEMBERED) this.ids.delete(this.ids.keys().next().value!);
    this.ids.set(paymentRef, endToEndId);
  }

  get(paymentRef: string): string | undefined {
    return this.ids.get(paymentRef);
  }
}
