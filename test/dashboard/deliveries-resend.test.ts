/**
 * The dashboard's deliveries: cursor-paginated lists with resource and date
 * filters, the exact request of each attempt and what came back, resending
 * every failed delivery of a filter (bounded, idempotent under a double
 * click), and who may see or do what.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemberRole } from '../../server/operator/access';
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_SECRET_OVERLAP_SECONDS, RESEND_FAILED_MAX } from '../../server/contract/operator/webhooks';
import { operatorContext } from '../../server/operator/procedure';
import { operatorRouter } from '../../server/operator/router';
import * as endpoints from '../../server/webhooks/endpoints';
import { RESEND_FAILED_BATCH } from '../../server/webhooks/deliveries';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant, type TestTenant } from '../support/tenant';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';

let world: SandboxedService;
let other: TestTenant;
let receiverA: Receiver;
let receiverB: Receiver;
let endpointA: string;
let endpointB: string;
let otherEndpoint: string;
const payments: string[] = [];

const admin = () => world.service.admin;
const env = () => world.tenant.environmentId;
const member = (organizationId: string, role: MemberRole) =>
  operatorRouter.createCaller(operatorContext(world.service.services, world.service.services.log, { kind: 'member', userId: 'usr_test', roles: new Map([[organizationId, role]]) }));
const allDeliveries = async () => (await admin().webhooks.listDeliveries({ environmentId: env(), limit: 500 })).items;

beforeAll(async () => {
  world = await startSandboxedService({ simulatorsInService: true, env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100' }, routes: { PIX: 'gateway_a' } });
  [receiverA, receiverB] = await Promise.all([startReceiver(), startReceiver()]);
  receiverA.answer({ status: 500, body: 'nope' });
  receiverB.answer({ status: 500, body: 'nope' });
  endpointA = (await admin().webhooks.createEndpoint({ environmentId: env(), url: receiverA.url() })).id;
  endpointB = (await admin().webhooks.createEndpoint({ environmentId: env(), url: receiverB.url() })).id;
  other = await createTenant(world.service);
  otherEndpoint = (await admin().webhooks.createEndpoint({ environmentId: other.environmentId, url: receiverB.url('/other') })).id;

  for (let i = 0; i < 3; i++) {
    const reply = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment({ externalId: `d-${i}` }) });
    payments.push(reply.body.id);
  }
  await admin().simulators.payment({ paymentId: payments[0]!, outcome: 'pay' });
  await eventually(async () => {
    const all = await allDeliveries();
    return all.length > 0 && all.every((d) => d.status === 'FAILED');
  }, 20_000);
}, 60_000);
afterAll(async () => {
  await Promise.all([receiverA?.close(), receiverB?.close()]);
  await world?.stop();
});

describe('webhooks.listDeliveries', () => {
  it('walks every delivery newest event first, in pages, without duplicates or skips (two endpoints share each event)', async () => {
    const all = await allDeliveries();
    const events = (await Promise.all(payments.map((id) => admin().payments.get({ paymentId: id })))).flatMap((d) => d.events);
    expect(all).toHaveLength(events.length * 2);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await admin().webhooks.listDeliveries({ environmentId: env(), limit: 3, cursor });
      seen.push(...page.items.map((d) => d.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all.map((d) => d.id));
    expect(new Set(seen).size).toBe(seen.length);
    const sequences = all.map((d) => d.eventSequence);
    expect([...sequences].sort((a, b) => b - a)).toEqual(sequences);
  });

  it('filters by the payment the events are about, the endpoint, and the creation time', async () => {
    const [paid] = payments;
    const detail = await admin().payments.get({ paymentId: paid! });
    const ofPayment = (await admin().webhooks.listDeliveries({ resourceId: paid })).items;
    expect(ofPayment).toHaveLength(detail.events.length * 2);
    expect(new Set(ofPayment.map((d) => d.eventId))).toEqual(new Set(detail.events.map((e) => e.id)));
    expect((await admin().webhooks.listDeliveries({ resourceId: paid, endpointId: endpointA })).items).toHaveLength(detail.events.length);

    const hourAgo = new Date(Date.now() - 3600_000);
    await world.service.services.db.fork().getConnection().execute(
      `update webhook_deliveries set created_at = ? where event_id in (select id from events where resource_id = ?)`,
      [hourAgo, paid],
    );
    const halfHourAgo = new Date(Date.now() - 1800_000).toISOString();
    const older = (await admin().webhooks.listDeliveries({ environmentId: env(), createdTo: halfHourAgo })).items;
    expect(older.map((d) => d.id).sort()).toEqual(ofPayment.map((d) => d.id).sort());
    const newer = (await admin().webhooks.listDeliveries({ environmentId: env(), createdFrom: halfHourAgo })).items;
    expect(newer.length + older.length).toBe((await allDeliveries()).length);
  });

  it('a cursor it did not hand out, or a reversed range, is 400 invalid_input', async () => {
    for (const input of [
      { environmentId: env(), cursor: 'bm9wZQ' },
      { environmentId: env(), cursor: Buffer.from(JSON.stringify({ l: 'deliveries', k: '12abc', i: 'wd_x' })).toString('base64url') },
      { environmentId: env(), createdFrom: '2026-01-02T00:00:00Z', createdTo: '2026-01-01T00:00:00Z' },
    ]) {
      const reply = await call(world.service.url, 'GET', `/internal/trpc/webhooks.listDeliveries?input=${encodeURIComponent(JSON.stringify(input))}`, {
        key: world.service.adminToken,
      });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe('invalid_input');
    }
  });
});

describe('webhooks.getDelivery', () => {
  it('shows each attempt with the exact bytes and headers sent, the answer status, excerpt, duration and error', async () => {
    const [delivery] = (await admin().webhooks.listDeliveries({ endpointId: endpointA, limit: 1 })).items;
    const detail = await admin().webhooks.getDelivery({ deliveryId: delivery!.id });
    const received = receiverA.received.find((r) => r.headers['x-service-delivery-id'] === delivery!.id)!;
    expect(detail.request).toEqual({ method: 'POST', url: receiverA.url(), headers: expect.any(Object), body: received.raw });
    expect(detail.attemptHistory).toHaveLength(1);
    const [attempt] = detail.attemptHistory;
    expect(attempt).toMatchObject({ number: 1, trigger: 'dispatch', outcome: 'FAILED', responseStatus: 500, responseExcerpt: 'nope', error: 'receiver answered 500', requestBody: received.raw });
    expect(attempt!.durationMs).toEqual(expect.any(Number));
    for (const [name, value] of Object.entries(attempt!.requestHeaders!)) expect(received.headers[name], name).toBe(value);
    expect(attempt!.requestHeaders!['x-service-signature']).toMatch(/^sha256=/);
  });
});

describe('webhooks.resendFailed', () => {
  it('resends only what the filter names', async () => {
    const [first] = payments;
    // Said before it runs: what the same filter would resend.
    expect(await admin().webhooks.countFailed({ environmentId: env(), endpointId: endpointB, resourceId: first, eventType: 'payment.created' })).toEqual({ resendable: 1, toDisabledEndpoint: 0 });
    const reply = await admin().webhooks.resendFailed({ environmentId: env(), endpointId: endpointB, resourceId: first, eventType: 'payment.created' });
    expect(reply).toMatchObject({ resent: 1, remaining: 0, moreRemain: false });
    const [delivery] = (await admin().webhooks.listDeliveries({ endpointId: endpointB, resourceId: first, eventType: 'payment.created' })).items;
    // Still failing at B: attempted again, failed again.
    await eventually(async () => (await admin().webhooks.getDelivery({ deliveryId: delivery!.id })).attempts === 2 && (await admin().webhooks.getDelivery({ deliveryId: delivery!.id })).status === 'FAILED');
  });

  it('resends every failed delivery once under a double click, skips a disabled endpoint, and reports what remains', async () => {
    receiverA.answer({ status: 200, body: 'thanks' });
    await admin().webhooks.updateEndpoint({ endpointId: endpointB, enabled: false });
    const before = await allDeliveries();
    const atA = before.filter((d) => d.endpointId === endpointA);
    const atB = before.filter((d) => d.endpointId === endpointB);
    const requestsBefore = receiverA.received.length;
    expect(await admin().webhooks.countFailed({ environmentId: env() })).toEqual({ resendable: atA.length, toDisabledEndpoint: atB.length });

    const [one, two] = await Promise.all([admin().webhooks.resendFailed({ environmentId: env() }), admin().webhooks.resendFailed({ environmentId: env() })]);
    expect(one.resent + two.resent).toBe(atA.length);
    expect(one.skippedDisabledEndpoint).toBe(atB.length);

    await eventually(async () => (await allDeliveries()).filter((d) => d.endpointId === endpointA).every((d) => d.status === 'SENT'), 20_000);
    expect(receiverA.received.length - requestsBefore).toBe(atA.length);
    for (const delivery of atA) {
      const detail = await admin().webhooks.getDelivery({ deliveryId: delivery.id });
      expect(detail.attemptHistory.map((a) => a.outcome)).toEqual(['FAILED', 'SENT']);
      // The same bytes again: the receiver deduplicates on the event id.
      const sent = receiverA.received.filter((r) => r.headers['x-service-delivery-id'] === delivery.id);
      expect(sent).toHaveLength(2);
      expect(sent[1]!.raw).toBe(sent[0]!.raw);
      expect(sent[1]!.headers['x-service-signature']).toBe(sent[0]!.headers['x-service-signature']);
    }
    expect(await admin().webhooks.resendFailed({ environmentId: env() })).toEqual({ resent: 0, remaining: 0, moreRemain: false, skippedDisabledEndpoint: atB.length });
    expect(await admin().webhooks.countFailed({ environmentId: env() })).toEqual({ resendable: 0, toDisabledEndpoint: atB.length });
    expect((await admin().overview.summary({ environmentId: env() })).failedDeliveries).toBe(atB.length);
    expect(RESEND_FAILED_BATCH).toBe(RESEND_FAILED_MAX);
  });

  it('an endpoint of another environment is refused rather than matching nothing', async () => {
    await expect(admin().webhooks.resendFailed({ environmentId: env(), endpointId: otherEndpoint })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(admin().webhooks.countFailed({ environmentId: env(), endpointId: otherEndpoint })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('who may see and do what', () => {
  it('a viewer reads the deliveries and endpoints (never a secret) but changes nothing: 403 forbidden', async () => {
    const viewer = member(world.tenant.organizationId, 'viewer');
    const [delivery] = (await viewer.webhooks.listDeliveries({ environmentId: env(), limit: 1 })).items;
    expect((await viewer.webhooks.getDelivery({ deliveryId: delivery!.id })).id).toBe(delivery!.id);
    const listed = await viewer.webhooks.listEndpoints({});
    expect(listed.map((e) => e.id).sort()).toEqual([endpointA, endpointB].sort());
    expect(JSON.stringify(listed)).not.toMatch(/"secret"|whsec_/);
    const forbidden = { code: 'FORBIDDEN', message: expect.stringMatching(/viewer/) };
    await expect(viewer.webhooks.resend({ deliveryId: delivery!.id })).rejects.toMatchObject(forbidden);
    await expect(viewer.webhooks.resendFailed({ environmentId: env() })).rejects.toMatchObject(forbidden);
    await expect(viewer.webhooks.createEndpoint({ environmentId: env(), url: receiverA.url('/x') })).rejects.toMatchObject(forbidden);
    await expect(viewer.webhooks.updateEndpoint({ endpointId: endpointA, enabled: false })).rejects.toMatchObject(forbidden);
    await expect(viewer.webhooks.rotateSecret({ endpointId: endpointA })).rejects.toMatchObject(forbidden);
    expect((await admin().webhooks.listEndpoints({ environmentId: env() })).find((e) => e.id === endpointA)!.enabled).toBe(true);
  });

  it('a developer registers, rotates and resends; the secret is in those answers only', async () => {
    const developer = member(world.tenant.organizationId, 'developer');
    const created = await developer.webhooks.createEndpoint({ environmentId: env(), url: receiverA.url('/dev'), enabled: false });
    expect(created.secret).toEqual(expect.any(String));
    const rotated = await developer.webhooks.rotateSecret({ endpointId: created.id, keepPreviousFor: 'now' });
    expect(rotated.secret).not.toBe(created.secret);
    const [delivery] = (await developer.webhooks.listDeliveries({ endpointId: endpointA, limit: 1 })).items;
    expect((await developer.webhooks.resend({ deliveryId: delivery!.id })).status).toBe('SENT');
    const listed = JSON.stringify(await developer.webhooks.listEndpoints({ environmentId: env() }));
    expect(listed).not.toContain(created.secret);
    expect(listed).not.toContain(rotated.secret);
  });

  it('a member of another organization sees nothing of it: not_found exactly as for a missing record', async () => {
    const outsider = member(other.organizationId, 'owner');
    const [delivery] = (await admin().webhooks.listDeliveries({ environmentId: env(), limit: 1 })).items;
    const missing = (what: string, id: string) => ({ code: 'NOT_FOUND', message: `${what} ${id} does not exist.` });
    await expect(outsider.webhooks.getDelivery({ deliveryId: delivery!.id })).rejects.toMatchObject(missing('Webhook delivery', delivery!.id));
    await expect(outsider.webhooks.getDelivery({ deliveryId: 'wd_000000000000000000000000' })).rejects.toMatchObject(missing('Webhook delivery', 'wd_000000000000000000000000'));
    await expect(outsider.webhooks.resend({ deliveryId: delivery!.id })).rejects.toMatchObject(missing('Webhook delivery', delivery!.id));
    await expect(outsider.webhooks.listDeliveries({ environmentId: env() })).rejects.toMatchObject(missing('Environment', env()));
    await expect(outsider.webhooks.listDeliveries({ endpointId: endpointA })).rejects.toMatchObject(missing('Webhook endpoint', endpointA));
    await expect(outsider.webhooks.listEndpoints({ projectId: world.tenant.projectId })).rejects.toMatchObject(missing('Project', world.tenant.projectId));
    await expect(outsider.webhooks.resendFailed({ environmentId: env() })).rejects.toMatchObject(missing('Environment', env()));
    await expect(outsider.webhooks.createEndpoint({ environmentId: env(), url: receiverA.url() })).rejects.toMatchObject(missing('Environment', env()));
    await expect(outsider.webhooks.updateEndpoint({ endpointId: endpointA, enabled: false })).rejects.toMatchObject(missing('Webhook endpoint', endpointA));
    await expect(outsider.webhooks.rotateSecret({ endpointId: endpointA })).rejects.toMatchObject(missing('Webhook endpoint', endpointA));
    // Unfiltered lists hold only the member's own organizations.
    expect((await outsider.webhooks.listEndpoints({})).map((e) => e.id)).toEqual([otherEndpoint]);
    expect((await outsider.webhooks.listDeliveries({ resourceId: payments[0] })).items).toEqual([]);
    expect((await outsider.webhooks.listDeliveries({})).items.every((d) => d.environmentId === other.environmentId)).toBe(true);
    // The operator sees every organization's.
    expect((await admin().webhooks.listEndpoints({})).map((e) => e.id)).toEqual(expect.arrayContaining([endpointA, endpointB, otherEndpoint]));
  });
});

it('the dashboard forms and the server agree on the secret overlap bounds', () => {
  expect(DEFAULT_SECRET_OVERLAP_SECONDS).toBe(endpoints.DEFAULT_SECRET_OVERLAP_SECONDS);
  expect(MAX_SECRET_OVERLAP_SECONDS).toBe(endpoints.MAX_SECRET_OVERLAP_SECONDS);
});
