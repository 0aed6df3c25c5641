/** What the refund tests share: a paid payment on a chosen gateway, the /v1 calls, the events of a resource. */
import type { GatewayName } from '../../server/contract/enums';
import { OutboxEvent } from '../../server/db/entities';
import { call, type Reply } from '../support/http';
import { readUntil } from '../support/outbox-events';
import type { SandboxedService } from '../support/sandboxed-service';

export const CUSTOMER = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '11987654321' };

let counter = 0;
export const uniqueId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

export function refundApi(world: SandboxedService) {
  const api = (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Reply> => call(world.service.url, method, path, { key: world.tenant.apiKey, body });

  /** A payment of `amount` created on `gateway` and paid there (its webhook applied). */
  async function paidPayment(gateway: GatewayName, amount = 10_000, method: 'pix' | 'card' = gateway === 'gateway_c' ? 'card' : 'pix') {
    await world.sandbox.route(method === 'pix' ? 'PIX' : 'CARD', gateway);
    const created = await api('POST', '/v1/payments', { amount, method, externalId: uniqueId('order'), customer: CUSTOMER, ...(method === 'card' ? { card: { installments: 1 } } : {}) });
    if (created.status !== 201) throw new Error(`payment create answered ${created.status}: ${created.text}`);
    await world.sandbox.sims[gateway].payPayment(created.body.gatewayRef);
    await world.sandbox.sims[gateway].flushWebhooks();
    const paid = await readUntil(() => api('GET', `/v1/payments/${created.body.id}`), (reply) => reply.body.status === 'paid');
    if (paid.body.status !== 'paid') throw new Error(`payment ${created.body.id} did not become paid: ${paid.body.status}`);
    return paid.body as { id: string; amount: number; gateway: GatewayName; gatewayRef: string; amountRefunded: number };
  }

  const refund = (paymentId: string, body: Record<string, unknown>) => api('POST', `/v1/payments/${paymentId}/refunds`, body);

  /** The committed events of resources, in commit order. */
  async function events(...resourceIds: string[]) {
    const rows = await world.service.services.db.fork().find(OutboxEvent, { resourceId: { $in: resourceIds } }, { orderBy: { sequence: 'asc' } });
    return rows.map((event) => ({ type: event.type, resourceId: event.resourceId, data: event.data as Record<string, unknown> }));
  }

  /** Settles (or fails) a pending refund at its simulator and waits for the service to have applied the notification. */
  async function atGateway(gateway: GatewayName, refund: { id: string; gatewayRef: string }, outcome: 'settle' | 'fail') {
    const sim = world.sandbox.sims[gateway];
    if (outcome === 'settle') await sim.settleRefund(refund.gatewayRef);
    else await sim.failRefund(refund.gatewayRef, 'the account cannot receive it');
    await sim.flushWebhooks();
    return readUntil(() => api('GET', `/v1/refunds/${refund.id}`), (reply) => reply.status === 200 && reply.body.status !== 'pending');
  }

  return { api, paidPayment, refund, events, atGateway };
}
