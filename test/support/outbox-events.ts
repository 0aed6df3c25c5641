/**
 * Committed events, written the way the payment code writes them: through
 * `recordEvents` and one flush per transition (the transactional outbox).
 */
import { OutboxEvent } from '../../server/db/entities';
import { recordEvents } from '../../server/domain/outbox';
import { randomToken } from '../../server/contract/ids';
import type { PaymentEventType } from '../../server/domain/events';
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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
