/**
 * The other lists an operator pages through are bounded by their page too
 * (issue 39 item 1): refunds, webhook deliveries and the audit log, called
 * as the dashboard and operator API call them, first page and a page from
 * the middle, and an event's page (its deliveries). One environment holds
 * 200,000 payments with their events, deliveries and refunds (the volume
 * benchmark's own seed, bench/volume/seed.mjs) and its organization 200,000
 * audit entries; each call's SQL is run again under EXPLAIN ANALYZE
 * (plan-reads.ts) and must show no sequential scan of the list's table and
 * no scan that read more than a few times the page.
 * PostgreSQL only, as bounded-plans.test.ts.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedEndpoint, seedVolume } from '../../bench/volume/seed.mjs';
import { encodeCursor } from '../../server/domain/listing/cursor';
import { onPostgres } from '../support/database';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { readsOf } from './plan-reads';

const PAYMENTS = 200_000;
const AUDIT_ENTRIES = 200_000;
const PAGE = 25;
/** Rows one scan of a page may read: the page and the row after it, a few times over (as bounded-plans.test.ts). */
const readsFor = (limit: number) => 4 * (limit + 1);
/** Rows a total may read: the 10,001 entries decision 25 counts. */
const TOTAL_READS = 10_001;

let service: TestService;
let tenant: TestTenant;
const mostRead: Record<string, number> = {};

async function expectBounded(name: string, table: string, limit: number, call: () => Promise<unknown>) {
  const reads = await readsOf(service, table, call);
  expect(reads.length, `${name}: no statement read ${table}`).toBeGreaterThan(0);
  for (const read of reads) {
    // A first page's total (the refunds list's) counts at most 10,001 rows, decision 25's cap. Here the environment's
    // refunds (one paid payment in 25, fewer than the cap) are the whole table, so the planner reads the table rather than the
    // index: still at most the cap. Pages are never a sequential scan.
    if (!read.isTotal) expect(read.seqScans, `${name}: sequential scan in ${read.sql}`).toEqual([]);
    const bound = read.isTotal ? TOTAL_READS : readsFor(limit);
    expect(read.mostRead, `${name}: a scan read ${read.mostRead} rows (bound ${bound}) in ${read.sql}`).toBeLessThanOrEqual(bound);
    mostRead[name] = Math.max(mostRead[name] ?? 0, read.mostRead);
  }
}

describe.skipIf(!onPostgres)(`refunds, deliveries, the audit log and an event's page at ${PAYMENTS.toLocaleString('en')} payments (PostgreSQL only)`, () => {
  /** Rows in the middle of each list, where a deep page starts. */
  let middle: { paymentId: string; refund: { id: string; createdAt: string }; eventId: string; delivery: { id: string; sequence: string }; audit: { id: string; createdAt: string } };

  beforeAll(async () => {
    service = await startTestService();
    tenant = await createTenant(service);
    if (service.config.database.kind !== 'postgresql') throw new Error('PostgreSQL only');
    const db = new pg.Client({ connectionString: service.config.database.url });
    await db.connect();
    try {
      const endpointId = await seedEndpoint(db, tenant.environmentId);
      await seedVolume(db, { environmentId: tenant.environmentId, to: PAYMENTS, endpointId });
      await db.query(
        `insert into audit_entries (id, organization_id, environment_id, actor_kind, actor_id, actor_email, action, target_type, target_id, created_at)
         select 'aud_v' || lpad(g::text, 7, '0'), $1, $2, 'user', 'usr_volume', 'owner@example.com',
                (array['api_key.created','webhook_endpoint.updated','routing.rule.updated','member.invited'])[1 + g % 4], 'payment', 'pay_v' || g,
                date_trunc('milliseconds', now()) - interval '23 days' + g * (interval '23 days' / ${AUDIT_ENTRIES})
           from generate_series(1, ${AUDIT_ENTRIES}) g`,
        [tenant.organizationId, tenant.environmentId],
      );
      for (const table of ['payments', 'refunds', 'events', 'webhook_deliveries', 'webhook_attempts', 'audit_entries']) await db.query(`analyze ${table}`);
      const refund = await db.query(`select payment_id from refunds where environment_id = $1 order by md5(id) limit 1`, [tenant.environmentId]);
      const refunds = await db.query(`select id, created_at from refunds where environment_id = $1 order by created_at offset (select count(*) / 2 from refunds) limit 1`, [tenant.environmentId]);
      const delivery = await db.query(
        `select id, event_id, event_sequence::text as sequence from webhook_deliveries where environment_id = $1 order by event_sequence offset (select count(*) / 2 from webhook_deliveries) limit 1`,
        [tenant.environmentId],
      );
      const audit = await db.query(`select id, created_at from audit_entries where organization_id = $1 order by created_at offset ${AUDIT_ENTRIES / 2} limit 1`, [tenant.organizationId]);
      middle = {
        paymentId: refund.rows[0].payment_id,
        refund: { id: refunds.rows[0].id, createdAt: new Date(refunds.rows[0].created_at).toISOString() },
        eventId: delivery.rows[0].event_id,
        delivery: { id: delivery.rows[0].id, sequence: delivery.rows[0].sequence },
        audit: { id: audit.rows[0].id, createdAt: new Date(audit.rows[0].created_at).toISOString() },
      };
    } finally {
      await db.end();
    }
  }, 900_000);
  afterAll(async () => {
    console.info(`[bounded-plans-other-lists] most rows one scan read, per call:\n${Object.entries(mostRead).map(([name, rows]) => `  ${name}: ${rows}`).join('\n')}`);
    await service?.stop();
  });

  it("refunds: the environment's first page and total, a page from the middle, and one payment's", async () => {
    const refunds = (input: Record<string, unknown>) => service.admin.refunds.list({ environmentId: tenant.environmentId, limit: PAGE, ...input } as never);
    const cursor = encodeCursor('refunds', { key: middle.refund.createdAt, id: middle.refund.id }, 'created_desc');
    await expectBounded('refunds', 'refunds', PAGE, () => refunds({}));
    await expectBounded('refunds middle', 'refunds', PAGE, () => refunds({ cursor }));
    await expectBounded('refunds of a payment', 'refunds', PAGE, () => refunds({ paymentId: middle.paymentId }));
  });

  it('webhook deliveries: first page, a page from the middle, one status, one event', async () => {
    const deliveries = (input: Record<string, unknown>) => service.admin.webhooks.listDeliveries({ environmentId: tenant.environmentId, limit: PAGE, ...input } as never);
    const cursor = encodeCursor('deliveries', { key: middle.delivery.sequence, id: middle.delivery.id });
    await expectBounded('deliveries', 'webhook_deliveries', PAGE, () => deliveries({}));
    await expectBounded('deliveries middle', 'webhook_deliveries', PAGE, () => deliveries({ cursor }));
    await expectBounded('deliveries failed', 'webhook_deliveries', PAGE, () => deliveries({ status: 'FAILED' }));
    await expectBounded('deliveries of an event', 'webhook_deliveries', PAGE, () => deliveries({ eventId: middle.eventId }));
  });

  it("the audit log: an owner's organization and the operator's whole log, first page and from the middle", async () => {
    const audit = (input: Record<string, unknown>) => service.admin.audit.list({ limit: PAGE, ...input } as never);
    const cursor = encodeCursor('audit', { key: middle.audit.createdAt, id: middle.audit.id });
    await expectBounded('audit', 'audit_entries', PAGE, () => audit({ organizationId: tenant.organizationId }));
    await expectBounded('audit middle', 'audit_entries', PAGE, () => audit({ organizationId: tenant.organizationId, cursor }));
    await expectBounded('audit (operator)', 'audit_entries', PAGE, () => audit({}));
    await expectBounded('audit (operator) middle', 'audit_entries', PAGE, () => audit({ cursor }));
  });

  it("an event's page: the event and its deliveries", async () => {
    await expectBounded('event', 'events', 1, () => service.admin.events.get({ eventId: middle.eventId } as never));
    await expectBounded('event deliveries', 'webhook_deliveries', PAGE, () => service.admin.events.get({ eventId: middle.eventId } as never));
  });
});
