/**
 * Orders of the example shop, in memory. A real shop keeps them in its
 * database; what matters is that each order has one stable id, used as the
 * payment's `externalId`, so paying the same order twice (a double click, a
 * retry after a timeout) can never create two payments.
 */
import { randomBytes } from 'node:crypto';

export interface Order {
  id: string;
  sku: string;
  amount: number;
  /** Set once the payment exists. */
  paymentId?: string;
}

const ORDER_ID = /^ord_[0-9a-f]{20}$/;

export const newOrderId = (): string => `ord_${randomBytes(10).toString('hex')}`;
export const isOrderId = (value: string): boolean => ORDER_ID.test(value);
/** The payment's idempotency key for an order. */
export const externalIdOf = (orderId: string): string => `checkout-${orderId}`;

export class OrderBook {
  readonly #orders = new Map<string, Order>();

  /** The order with this id, opened on first use with the product's price. */
  open(id: string, sku: string, amount: number): Order {
    const existing = this.#orders.get(id);
    if (existing) return existing;
    const order: Order = { id, sku, amount };
    this.#orders.set(id, order);
    return order;
  }

  get(id: string): Order | undefined {
    return this.#orders.get(id);
  }
}
