/**
 * The dashboard's subscriptions list and detail, and the home page's
 * overview: real subscriptions and payments made through /v1 on the sandbox
 * gateways, counted per day and status by the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemberRole } from '../../server/operator/access';
import { operatorContext } from '../../server/operator/procedure';
import { operatorRouter } from '../../server/operator/router';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant, type TestTenant } from '../support/tenant';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';

let world: SandboxedService;
let other: TestTenant;
let receiver: Receiver;
const ids: Record<string, string> = {};
const DAY = 24 * 3600_000;

const admin = () => world.service.admin;
const member = (organizationId: string, role: MemberRole = 'viewer') =>
  operatorRouter.createCaller(operatorContext(world.service.services, world.service.services.log, { kind: 'member', userId: 'usr_test', roles: new Map([[organizationId, role]]) }));
const sql = (query: string, params: unknown[]) => world.service.services.db.fork().getConnection().execute(query, params);

async function subscribe(name: string, externalId: string) {
  const reply = await call(world.service.url, 'POST', '/v1/subscriptions', {
    key: world.tenant.apiKey,
    body: { amount: 4990, interval: 'monthly', externalId, customer: { name: 'Ana', email: 'ana@example.com', document: '12345678909' } },
  });
  expect(reply.status).toBe(201);
  ids[name] = reply.body.id;
}

async function pay(name: string, externalId: string, amount: number) {
  const reply = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment({ method: 'pix', externalId, amount }) });
  expect(reply.status).toBe(201);
  ids[name] = reply.body.id;
}

beforeAll(async () => {
  world = await startSandboxedService({ simulatorsInService: true, env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100' }, routes: { PIX: 'gateway_a', SUBSCRIPTION: 'gateway_b' } });
  receiver = await startReceiver();
  receiver.answer({ status: 503, body: 'down' });
  await admin().webhooks.createEndpoint({ environmentId: world.tenant.environmentId, url: receiver.url() });
  other = await createTenant(world.service);

  await subscribe('gold', 'plan-gold-1');
  await subscribe('silver', 'plan-silver-1');
  await subscribe('old', 'plan-old-1');
  await admin().simulators.subscription({ subscriptionId: ids.gold!, outcome: 'renew' });
  await admin().simulators.subscription({ subscriptionId: ids.silver!, outcome: 'past-due' });

  await pay('paid', 'o-1', 1000);
  await pay('threeDaysAgo', 'o-2', 2500);
  await pay('longAgo', 'o-3', 7000);
  await pay('expired', 'o-4', 1500);
  await admin().simulators.payment({ paymentId: ids.paid!, outcome: 'pay' });
  await admin().simulators.payment({ paymentId: ids.threeDaysAgo!, outcome: 'pay' });
  await admin().simulators.payment({ paymentId: ids.longAgo!, outcome: 'pay' });
  await admin().simulators.payment({ paymentId: ids.expired!, outcome: 'expire' });
  await sql(`update payments set created_at = ? where id = ?`, [new Date(Date.now() - 3 * DAY), ids.threeDaysAgo]);
  await sql(`update payments set created_at = ? where id = ?`, [new Date(Date.now() - 40 * DAY), ids.longAgo]);
  await sql(`update subscriptions set created_at = ? where id = ?`, [new Date(Date.now() - 40 * DAY), ids.old]);
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await world?.stop();
});

describe('subscriptions.list', () => {
  it('lists newest first, one per page, and filters by status, gateway, creation time and search', async () => {
    const environmentId = world.tenant.environmentId;
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await admin().subscriptions.list({ environmentId, limit: 1, cursor });
      seen.push(...page.items.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([ids.silver, ids.gold, ids.old]);

    const list = (filter: Record<string, unknown>) => admin().subscriptions.list({ environmentId, ...filter }).then((page) => page.items.map((s) => s.id));
    expect(await list({ status: 'past_due' })).toEqual([ids.silver]);
    expect(await list({ status: 'canceled' })).toEqual([]);
    expect(await list({ gateway: 'gateway_b' })).toHaveLength(3);
    expect(await list({ gateway: 'gateway_c' })).toEqual([]);
    expect(await list({ createdTo: new Date(Date.now() - DAY).toISOString() })).toEqual([ids.old]);
    expect(await list({ search: 'plan-' })).toHaveLength(3);
    expect(await list({ search: 'plan-gold-1' })).toEqual([ids.gold]);
    expect(await list({ search: ids.silver })).toEqual([ids.silver]);

    const [row] = (await admin().subscriptions.list({ environmentId, search: ids.gold })).items;
    expect(row).toMatchObject({ id: ids.gold, externalId: 'plan-gold-1', status: 'active', gateway: 'gateway_b', gatewayRef: expect.any(String), amount: 4990, interval: 'monthly' });
  });

  it('a payments cursor is not a subscriptions cursor', async () => {
    const environmentId = world.tenant.environmentId;
    const paymentsCursor = (await admin().payments.list({ environmentId, limit: 1 })).nextCursor!;
    await expect(admin().subscriptions.list({ environmentId, cursor: paymentsCursor })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/cursor/) });
  });
});

describe('subscriptions.get', () => {
  it('shows the subscription, its events with their deliveries, and the payments charged for it', async () => {
    await eventually(async () => (await admin().subscriptions.get({ subscriptionId: ids.gold! })).events.every((e) => e.deliveries[0]?.status === 'FAILED'));
    const detail = await admin().subscriptions.get({ subscriptionId: ids.gold! });
    expect(detail.subscription).toMatchObject({ id: ids.gold, status: 'active', gateway: 'gateway_b', environmentId: world.tenant.environmentId });
    expect(detail.events.map((e) => e.type)).toEqual(['subscription.created', 'subscription.renewed']);
    expect(detail.events[1]!.deliveries).toEqual([
      expect.objectContaining({ status: 'FAILED', attempts: 1, endpointUrl: receiver.url(), lastResponseStatus: 503, lastError: 'receiver answered 503' }),
    ]);
    expect(detail.payments).toEqual([expect.objectContaining({ status: 'paid', method: 'card', amount: 4990, subscriptionId: ids.gold })]);
  });

  it('another organization gets not_found, as for a missing id', async () => {
    const outsider = member(other.organizationId, 'owner');
    await expect(outsider.subscriptions.get({ subscriptionId: ids.gold! })).rejects.toMatchObject({ code: 'NOT_FOUND', message: `Subscription ${ids.gold} does not exist.` });
    await expect(outsider.subscriptions.list({ environmentId: world.tenant.environmentId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(admin().subscriptions.get({ subscriptionId: 'sub_000000000000000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await member(world.tenant.organizationId).subscriptions.get({ subscriptionId: ids.gold! })).subscription.id).toBe(ids.gold);
  });
});

describe('overview.summary', () => {
  it('counts per day and status what was created, the amount paid, and the failed deliveries', async () => {
    const environmentId = world.tenant.environmentId;
    // Every delivery has its outcome (the receiver answers 503): they all failed.
    const failed = await eventually(async () => {
      const all = (await admin().webhooks.listDeliveries({ environmentId, limit: 500 })).items;
      return all.length > 0 && all.every((d) => d.status === 'FAILED') ? all.length : undefined;
    });

    const summary = await admin().overview.summary({ environmentId });
    expect(summary.days).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    const threeDaysAgo = new Date(Date.now() - 3 * DAY).toISOString().slice(0, 10);
    expect(summary.days.at(-1)!.date).toBe(today);
    expect(summary.days.map((d) => d.date)).toEqual([...summary.days.map((d) => d.date)].sort());

    const todayRow = summary.days.at(-1)!;
    // Today: the renewal's charge (paid, 4990), `paid` (1000) and `expired`.
    expect(todayRow.payments).toEqual({ created: 0, pending: 0, processing: 0, paid: 2, failed: 0, canceled: 0, expired: 1 });
    expect(todayRow.paidAmount).toBe(4990 + 1000);
    expect(todayRow.subscriptions).toEqual({ trialing: 0, active: 1, past_due: 1, canceled: 0 });
    const earlier = summary.days.find((d) => d.date === threeDaysAgo)!;
    expect(earlier.payments.paid).toBe(1);
    expect(earlier.paidAmount).toBe(2500);
    // Forty days ago is outside the 30 days shown.
    expect(summary.totals).toMatchObject({ paymentCount: 4, subscriptionCount: 2, paidAmount: 4990 + 1000 + 2500 });
    expect(summary.failedDeliveries).toBe(failed);

    const wide = await admin().overview.summary({ environmentId, days: 90 });
    expect(wide.days).toHaveLength(90);
    expect(wide.totals).toMatchObject({ paymentCount: 5, subscriptionCount: 3, paidAmount: 4990 + 1000 + 2500 + 7000 });

    const one = await admin().overview.summary({ environmentId, days: 1 });
    expect(one.days.map((d) => d.date)).toEqual([today]);
  });

  it('refuses 0 or more than 90 days, and other organizations', async () => {
    const environmentId = world.tenant.environmentId;
    await expect(admin().overview.summary({ environmentId, days: 0 })).rejects.toThrow();
    await expect(admin().overview.summary({ environmentId, days: 91 })).rejects.toThrow();
    await expect(member(other.organizationId, 'owner').overview.summary({ environmentId })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Environment ${environmentId} does not exist.`,
    });
    const empty = await member(other.organizationId).overview.summary({ environmentId: other.environmentId });
    expect(empty.totals).toMatchObject({ paymentCount: 0, subscriptionCount: 0, paidAmount: 0 });
    expect(empty.failedDeliveries).toBe(0);
  });
});
