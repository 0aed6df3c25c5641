/**
 * The dashboard's payments list and detail (payments.list / payments.get):
 * real payments made through /v1 on the sandbox gateways, paginated without
 * duplicates or skips, filtered, searched, refused for other organizations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorContext } from '../../server/operator/procedure';
import { operatorRouter } from '../../server/operator/router';
import type { MemberRole } from '../../server/operator/access';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant, type TestTenant } from '../support/tenant';
import { startReceiver, type Receiver } from '../support/receiver';
import { eventually } from '../support/outbox-events';

let world: SandboxedService;
let other: TestTenant;
let receiver: Receiver;
const ids: Record<string, string> = {};
let tiedAt: Date;

const admin = () => world.service.admin;
const member = (organizationId: string, role: MemberRole = 'viewer') =>
  operatorRouter.createCaller(operatorContext(world.service.services, world.service.services.log, { kind: 'member', userId: 'usr_test', roles: new Map([[organizationId, role]]) }));

async function pay(name: string, method: 'pix' | 'card', externalId: string) {
  const reply = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment({ method, externalId }) });
  expect(reply.status).toBe(201);
  ids[name] = reply.body.id;
  return reply.body;
}

beforeAll(async () => {
  world = await startSandboxedService({ simulatorsInService: true, env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100' }, routes: { PIX: 'gateway_a', CARD: 'gateway_b' } });
  receiver = await startReceiver();
  await admin().webhooks.createEndpoint({ environmentId: world.tenant.environmentId, url: receiver.url() });
  other = await createTenant(world.service);

  await pay('pix1', 'pix', 'shop-a-1');
  await pay('pix2', 'pix', 'shop-a-2');
  await pay('pix3', 'pix', 'shop-b-1');
  await pay('pix4', 'pix', 'shop_100%');
  await pay('card1', 'card', 'cart-1');
  await pay('card2', 'card', 'cart-2');
  await pay('card3', 'card', 'cart-3');
  await admin().simulators.payment({ paymentId: ids.pix1!, outcome: 'pay' });
  await admin().simulators.payment({ paymentId: ids.pix2!, outcome: 'pay' });
  await admin().simulators.payment({ paymentId: ids.card1!, outcome: 'decline' });
  // Five payments created in the same millisecond: pages must break the tie by id.
  tiedAt = new Date(Date.now() + 60_000);
  await world.service.services.db
    .fork()
    .getConnection()
    .execute(`update payments set created_at = ? where id in (?, ?, ?, ?, ?)`, [tiedAt, ids.pix2, ids.pix3, ids.pix4, ids.card1, ids.card2]);
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await world?.stop();
});

describe('payments.list', () => {
  it('walks every payment newest first, two per page, without duplicates or skips across equal createdAt', async () => {
    const all = await admin().payments.list({ environmentId: world.tenant.environmentId, limit: 100 });
    expect(all.items).toHaveLength(7);
    expect(all.nextCursor).toBeNull();
    for (let i = 1; i < all.items.length; i++) {
      const [a, b] = [all.items[i - 1]!, all.items[i]!];
      expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)).toBe(true);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await admin().payments.list({ environmentId: world.tenant.environmentId, limit: 2, cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((p) => p.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toEqual(all.items.map((p) => p.id));
    expect(all.items.slice(0, 5).every((p) => p.createdAt === tiedAt.toISOString())).toBe(true);
  });

  it('defaults to 25 per page and refuses a page size over 100', async () => {
    const page = await admin().payments.list({ environmentId: world.tenant.environmentId });
    expect(page.items).toHaveLength(7);
    await expect(admin().payments.list({ environmentId: world.tenant.environmentId, limit: 101 })).rejects.toThrow();
  });

  it('shows what the list needs, with the gateway and its reference, and no QR code or checkout link', async () => {
    const { items } = await admin().payments.list({ environmentId: world.tenant.environmentId, search: ids.pix1 });
    expect(items).toEqual([
      expect.objectContaining({
        id: ids.pix1,
        externalId: 'shop-a-1',
        status: 'paid',
        method: 'pix',
        amount: 1990,
        currency: 'BRL',
        gateway: 'gateway_a',
        gatewayRef: expect.any(String),
        subscriptionId: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      }),
    ]);
    expect(items[0]).not.toHaveProperty('pix');
    expect(items[0]).not.toHaveProperty('checkoutUrl');
  });

  it('filters by status, method, gateway and creation time', async () => {
    const list = (filter: Record<string, unknown>) =>
      admin()
        .payments.list({ environmentId: world.tenant.environmentId, ...filter })
        .then((page) => page.items.map((p) => p.id).sort());
    expect(await list({ status: 'paid' })).toEqual([ids.pix1, ids.pix2].sort());
    expect(await list({ status: 'failed' })).toEqual([ids.card1]);
    expect(await list({ method: 'card' })).toEqual([ids.card1, ids.card2, ids.card3].sort());
    expect(await list({ gateway: 'gateway_b' })).toEqual([ids.card1, ids.card2, ids.card3].sort());
    expect(await list({ gateway: 'gateway_c' })).toEqual([]);
    expect(await list({ method: 'pix', status: 'pending' })).toEqual([ids.pix3, ids.pix4].sort());
    expect(await list({ createdFrom: tiedAt.toISOString() })).toEqual([ids.pix2, ids.pix3, ids.pix4, ids.card1, ids.card2].sort());
    expect(await list({ createdTo: tiedAt.toISOString() })).toEqual([ids.pix1, ids.card3].sort());
    const after = new Date(tiedAt.getTime() + 1).toISOString();
    expect(await list({ createdFrom: after })).toEqual([]);
    // An offset is understood: the same instant written in Brasília time.
    const brasilia = new Date(tiedAt.getTime() - 3 * 3600_000).toISOString().replace('Z', '-03:00');
    expect(await list({ createdFrom: brasilia, createdTo: after })).toHaveLength(5);
  });

  it('searches an exact id, an exact externalId or the start of one; wildcards are literal', async () => {
    const search = (text: string) =>
      admin()
        .payments.list({ environmentId: world.tenant.environmentId, search: text })
        .then((page) => page.items.map((p) => p.id).sort());
    expect(await search(ids.card2!)).toEqual([ids.card2]);
    expect(await search('shop-a-2')).toEqual([ids.pix2]);
    expect(await search('shop-a')).toEqual([ids.pix1, ids.pix2].sort());
    expect(await search('shop')).toHaveLength(4);
    expect(await search('shop_')).toEqual([ids.pix4]);
    expect(await search('shop%')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('nothing-like-it')).toEqual([]);
  });

  it('a cursor it did not hand out is 400 invalid_input in the contract shape, never a 500', async () => {
    const environmentId = world.tenant.environmentId;
    const real = (await admin().payments.list({ environmentId, limit: 1 })).nextCursor!;
    const subscriptionsCursor = Buffer.from(JSON.stringify({ l: 'subscriptions', k: new Date().toISOString(), i: 'sub_x' })).toString('base64url');
    for (const cursor of ['garbage!', 'e30', real.slice(0, -3), subscriptionsCursor, Buffer.from('{"l":"payments","k":"yesterday","i":"x"}').toString('base64url')]) {
      const input = encodeURIComponent(JSON.stringify({ environmentId, cursor }));
      const reply = await call(world.service.url, 'GET', `/internal/trpc/payments.list?input=${input}`, { key: world.service.adminToken });
      expect(reply.status, cursor).toBe(400);
      expect(reply.body).toMatchObject({ error: 'invalid_input', message: expect.stringMatching(/cursor/) });
    }
  });

  it('refuses a range that ends before it starts, and a date that is not an instant', async () => {
    const environmentId = world.tenant.environmentId;
    for (const input of [
      { environmentId, createdFrom: '2026-11-22T10:00:00Z', createdTo: '2026-11-22T09:00:00Z' },
      { environmentId, createdFrom: 'yesterday' },
      { environmentId, status: 'lost' },
      { environmentId, createdFrom: '0000-01-01T00:00:00Z' },
      { environmentId, createdTo: '9999-12-31T23:59:59-05:00' },
      { environmentId, createdFrom: '2026-02-31T00:00:00Z' },
      { environmentId, search: 'a\u0000b' },
      { environmentId, search: '' },
    ]) {
      const reply = await call(world.service.url, 'GET', `/internal/trpc/payments.list?input=${encodeURIComponent(JSON.stringify(input))}`, { key: world.service.adminToken });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe('invalid_input');
    }
  });
});

describe('payments.get', () => {
  it('shows the payment with its gateway reference and the timeline of its events and their deliveries', async () => {
    await eventually(async () => {
      const detail = await admin().payments.get({ paymentId: ids.pix1! });
      return detail.events.every((e) => e.deliveries.length === 1 && e.deliveries[0]!.status === 'SENT');
    });
    const detail = await admin().payments.get({ paymentId: ids.pix1! });
    expect(detail.payment).toMatchObject({
      id: ids.pix1,
      status: 'paid',
      gateway: 'gateway_a',
      gatewayRef: expect.any(String),
      environmentId: world.tenant.environmentId,
      externalId: 'shop-a-1',
      pix: expect.objectContaining({ qrCodeText: expect.any(String) }),
    });
    expect(detail.events.map((e) => e.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
    const sequences = detail.events.map((e) => e.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    const paid = detail.events[2]!;
    expect(paid.payload).toMatchObject({ id: paid.id, type: 'payment.paid', data: { paymentId: ids.pix1, status: 'paid' } });
    expect(paid.deliveries[0]).toMatchObject({ status: 'SENT', attempts: 1, endpointUrl: receiver.url(), lastAttemptAt: expect.any(String), lastResponseStatus: 200, lastError: null });
    // The receiver got exactly that payload.
    expect(receiver.received.map((r) => r.json.id)).toContain(paid.id);
  });

  it('a payment that does not exist is not_found', async () => {
    await expect(admin().payments.get({ paymentId: 'pay_000000000000000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('another organization', () => {
  it('a member of another organization sees nothing: the same not_found as a missing record', async () => {
    const outsider = member(other.organizationId, 'owner');
    const missingEnvironment = await outsider.payments.list({ environmentId: 'env_000000000000000000000000' }).catch((e) => e);
    const foreignEnvironment = await outsider.payments.list({ environmentId: world.tenant.environmentId }).catch((e) => e);
    expect(foreignEnvironment).toMatchObject({ code: 'NOT_FOUND', message: `Environment ${world.tenant.environmentId} does not exist.` });
    expect(missingEnvironment.message).toBe('Environment env_000000000000000000000000 does not exist.');
    await expect(outsider.payments.get({ paymentId: ids.pix1! })).rejects.toMatchObject({ code: 'NOT_FOUND', message: `Payment ${ids.pix1} does not exist.` });
    expect((await outsider.payments.list({ environmentId: other.environmentId })).items).toEqual([]);
  });

  it('a viewer of the organization reads its payments', async () => {
    const viewer = member(world.tenant.organizationId, 'viewer');
    expect((await viewer.payments.list({ environmentId: world.tenant.environmentId })).items).toHaveLength(7);
    expect((await viewer.payments.get({ paymentId: ids.card1! })).payment.status).toBe('failed');
  });
});
