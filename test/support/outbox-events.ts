/**
 * Committed events, written the way the payment code writes them: through
 * `recordEvents` and one flush per transition (the transactional outbox).
 */
import { OutboxEvent } from '../../server/db/entities';
import { recordEvents } from '../../server/domain/outbox';
import { randomToken } from '../../server/contract/ids';
import type { PaymentEventType } from '../../server/domain/events';
import type { Receiver } from './receiver';
import type { WebhookTestService } from './webhook-service';

/** The `data` of a payment event for a Pix payment on gateway_a. */
export function paymentEventData(paymentId: string, status: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    paymentId,
    externalId: `order-${paymentId.slice(-8)}`,
    status,
    method: 'pix',
    provider: 'gateway_a',
    amount: 1990,
    currency: 'BRL',
    gatewayRef: status === 'created' ? null : `ga_${paymentId.slice(-12)}`,
    ...overrides,
  };
}

export const newPaymentId = () => `pay_${randomToken(24)}`;

/** Commits `payment.<status>` events for one payment, one transition per flush, and returns them in commit order. */
export async function commitPaymentEvents(service: WebhookTestService, environmentId: string, paymentId: string, statuses: string[]): Promise<OutboxEvent[]> {
  for (const status of statuses) {
    const em = service.services.db.fork();
    recordEvents(em, [{ type: `payment.${status}` as PaymentEventType, resourceId: paymentId, environmentId, data: paymentEventData(paymentId, status) }]);
    await em.flush();
  }
  service.services.outbox.notify();
  return service.services.db.fork().find(OutboxEvent, { resourceId: paymentId }, { orderBy: { sequence: 'asc' } });
}

/** Waits until `check` returns a value other than undefined/false. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Reads until `done` holds or the deadline passes, and answers the last read
 * either way, so the test's own assertion on it says what was seen rather
 * than a bare timeout.
 */
export async function readUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * For a negative that only time can show (nothing arrives, nothing changes):
 * checks `check` repeatedly over `ms` and fails at the first false, so the
 * wait is named and its window stated, instead of a bare sleep and one look.
 */
export async function holdsFor(ms: number, check: () => boolean | Promise<boolean>, what = 'condition'): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (!(await check())) throw new Error(`${what} stopped holding within ${ms} ms`);
    if (Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(25, Math.max(1, until - Date.now()))));
  }
}

/**
 * Proof that nothing more is on its way to an endpoint, without waiting a
 * guessed while: commits one more event (`payment.created` of a new payment,
 * the marker) and waits until the receiver has it. The dispatcher claims an
 * endpoint's deliveries in commit order, oldest first, so a repeat or a retry
 * of an earlier delivery that was due would have reached the receiver before
 * the marker. Answers the marker's event id.
 */
export async function deliverMarker(service: WebhookTestService, environmentId: string, receiver: Receiver, timeoutMs = 15_000): Promise<string> {
  const [marker] = await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
  await eventually(async () => receiver.received.some((d) => d.json?.id === marker!.id), timeoutMs, 'the marker event at the receiver');
  return marker!.id;
}
