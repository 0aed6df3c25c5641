/**
 * Retention of events (decision 19: kept at least 30 days): pruning deletes
 * only events older than EVENT_RETENTION_DAYS whose deliveries are finished,
 * with those deliveries and their attempts, and GET /v1/events keeps listing
 * the rest. The dispatcher is off so the test decides each delivery's state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { pruneExpiredEvents } from '../../server/domain/events-feed/prune';
import { fanOutAll } from '../../server/webhooks/fan-out';
import { commitPaymentEvents, newPaymentId } from '../support/outbox-events';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
const DAY = 86_400_000;

beforeAll(async () => {
  service = await startTestService({ env: { WEBHOOK_DISPATCHER: 'false', WEBHOOK_ALLOW_LOCAL_URLS: 'true', EVENT_RETENTION_DAYS: '45' } });
  tenant = await createTenant(service);
}, 60_000);
afterAll(async () => {
  await service?.stop();
});

async function list(after?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}/v1/events?limit=100${after ? `&after=${after}` : ''}`, { headers: { authorization: `Bearer ${tenant.apiKey}` } });
  return { status: response.status, body: await response.json() };
}

describe('pruning expired events', () => {
  it('deletes only events older than the retention whose deliveries are finished, and the API lists the rest', async () => {
    const em = service.services.db.fork();
    await service.admin.webhooks.createEndpoint({ environmentId: tenant.environmentId, url: 'http://127.0.0.1:9/hooks' });
    // Ten events, one per case below, oldest first (as events are numbered in about the order they happen).
    const events = await commitPaymentEvents(service, tenant.environmentId, newPaymentId(), ['created', 'pending', 'paid', 'failed', 'canceled', 'expired', 'created', 'pending', 'paid', 'failed']);
    const [oldSent, oldFailed, oldPending, oldLeased, oldNoEndpoint, notFannedOut, justExpired, edgeKept, young, fresh] = events.map((e) => e.id) as string[];
    // One stays undispatched (marked dispatched during the fan-out, then unmarked): it has no delivery yet.
    await em.execute(`update events set dispatched_at = now() where id = ?`, [notFannedOut]);
    await fanOutAll(() => service.services.db.fork());
    await em.execute(`update events set dispatched_at = null where id = ?`, [notFannedOut]);
    await em.execute(`delete from webhook_deliveries where event_id = ?`, [oldNoEndpoint]);

    const setDelivery = (eventId: string, status: string, leaseUntil: Date | null = null) =>
      em.execute(`update webhook_deliveries set status = ?, lease_until = ?, body = '{}', attempt_count = 1 where event_id = ?`, [status, leaseUntil, eventId]);
    for (const id of [oldSent, edgeKept, young, justExpired, fresh]) await setDelivery(id!, 'SENT');
    await setDelivery(oldFailed!, 'FAILED');
    await setDelivery(oldLeased!, 'FAILED', new Date(Date.now() + 60_000)); // a manual resend in progress
    // oldPending keeps its PENDING delivery: it was never attempted.
    await em.execute(
      `insert into webhook_attempts (delivery_id, number, trigger, started_at, finished_at, outcome, response_status) select id, 1, 'dispatch', now(), now(), 'SENT', 200 from webhook_deliveries where event_id in (?, ?)`,
      [oldSent, oldFailed],
    );

    const age = (id: string, days: number) => em.execute(`update events set created_at = ? where id = ?`, [new Date(Date.now() - days * DAY), id]);
    for (const id of [oldSent, oldFailed, oldPending, oldLeased, oldNoEndpoint, notFannedOut]) await age(id!, 60);
    await age(edgeKept!, 44.9);
    await age(justExpired!, 45.1);
    await age(young!, 29);

    const before = await list();
    expect(before.body.data.map((e: any) => e.id)).toEqual(events.map((e) => e.id));

    expect(await pruneExpiredEvents(service.services)).toBe(4);
    const kept = [oldPending, oldLeased, notFannedOut, edgeKept, young, fresh];
    const remaining = await em.execute<{ id: string }[]>(`select id from events where environment_id = ? order by sequence`, [tenant.environmentId]);
    expect(remaining.map((row) => row.id)).toEqual(kept);
    const deliveries = await em.execute<{ event_id: string }[]>(
      `select d.event_id from webhook_deliveries d join events e on e.id = d.event_id where e.environment_id = ? order by e.sequence`,
      [tenant.environmentId],
    );
    expect(deliveries.map((row) => row.event_id)).toEqual([oldPending, oldLeased, edgeKept, young, fresh]);
    expect(deliveries.some((row) => row.event_id === notFannedOut)).toBe(false);
    const [attempts] = await em.execute<{ count: string | number }[]>(`select count(*) as count from webhook_attempts`);
    expect(Number(attempts!.count)).toBe(0);

    // The API lists what is kept, in order; a cursor at a pruned event is refused at `after`, naming the retention.
    const after = await list();
    expect(after.body.data.map((e: any) => e.id)).toEqual(kept);
    expect(after.body.data).toEqual(before.body.data.filter((e: any) => kept.includes(e.id)));
    const gone = await list(oldSent);
    expect(gone.status).toBe(400);
    expect(gone.body.issues).toEqual([{ path: ['after'], message: expect.stringContaining('45 days') }]);
    expect((await list(oldPending)).body.data.map((e: any) => e.id)).toEqual(kept.slice(1));

    // A second pass (or another node) finds nothing more to do.
    expect(await pruneExpiredEvents(service.services)).toBe(0);
  });

  it('works through a backlog in small batches', async () => {
    const em = service.services.db.fork();
    const other = await createTenant(service);
    const events = await commitPaymentEvents(service, other.environmentId, newPaymentId(), Array.from({ length: 12 }, () => 'created'));
    await em.execute(`update events set dispatched_at = now() where environment_id = ?`, [other.environmentId]);
    await em.execute(`update events set created_at = ?`, [new Date(Date.now() - 90 * DAY)]);
    expect(events).toHaveLength(12);
    expect(await pruneExpiredEvents(service.services, new Date(), 5)).toBeGreaterThanOrEqual(12);
    const [left] = await em.execute<{ count: string | number }[]>(`select count(*) as count from events where environment_id = ?`, [other.environmentId]);
    expect(Number(left!.count)).toBe(0);
  });
});

describe('EVENT_RETENTION_DAYS', () => {
  it('defaults to 30 and is never shorter: merchants are promised 30 days', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).events.retentionDays).toBe(30);
    expect(loadConfig({ NODE_ENV: 'test', EVENT_RETENTION_DAYS: '90' }).events.retentionDays).toBe(90);
    expect(() => loadConfig({ NODE_ENV: 'test', EVENT_RETENTION_DAYS: '7' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'test', EVENT_RETENTION_DAYS: '7' })).toThrow(/EVENT_RETENTION_DAYS/);
  });
});
