/**
 * The refunds list pages with a keyset cursor as the payments list does
 * (issue 39 item 1): newest first, every refund once across pages, the total
 * on the first page only, one payment's refunds alone, and a cursor of
 * another list refused as invalid input. PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../server/domain/listing/cursor';
import { insertPayments } from '../support/bulk-payments';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
const REFUNDS = 7;

beforeAll(async () => {
  service = await startTestService();
  tenant = await createTenant(service);
  await insertPayments(service, tenant.environmentId, { count: 3, prefix: 'r', status: 'paid' });
  // Seven refunds a second apart, the newest last; two share an instant (the id breaks the tie). Payment 2 has ref_r1, r3 and r5.
  await service.services.db
    .fork()
    .getConnection()
    .execute(
      `insert into refunds (id, environment_id, payment_id, external_id, gateway, amount, currency, status, request_hash, created_at, updated_at)
       select 'ref_r' || g, ?, 'pay_r_' || lpad((1 + g % 2 + (g / 7) )::text, 6, '0'), 'refund-' || g, 'gateway_a', 100, 'BRL', 'succeeded', repeat('0', 64),
              date_trunc('seconds', now()) - interval '1 hour' + least(g, 6) * interval '1 second', now()
         from generate_series(1, ?) g`,
      [tenant.environmentId, REFUNDS],
    );
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

const list = (input: Record<string, unknown>) => service.admin.refunds.list({ environmentId: tenant.environmentId, ...input } as never);

describe('refunds list', () => {
  it('pages newest first with a cursor: every refund once, the total on the first page only', async () => {
    const first = await list({ limit: 3 });
    expect(first).toMatchObject({ total: REFUNDS, totalIsLowerBound: false });
    const seen = [...first.items];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await list({ limit: 3, cursor });
      expect(page.total).toBeNull();
      seen.push(...page.items);
      cursor = page.nextCursor;
    }
    expect(seen.map((refund) => refund.id)).toEqual(['ref_r7', 'ref_r6', 'ref_r5', 'ref_r4', 'ref_r3', 'ref_r2', 'ref_r1']);
  });

  it("one payment's refunds only, paged the same way", async () => {
    const first = await list({ paymentId: 'pay_r_000002', limit: 2 });
    expect(first.total).toBe(3);
    const second = await list({ paymentId: 'pay_r_000002', limit: 2, cursor: first.nextCursor });
    expect([...first.items, ...second.items].map((refund) => refund.id)).toEqual(['ref_r5', 'ref_r3', 'ref_r1']);
    expect(second.nextCursor).toBeNull();
  });

  it('a cursor of another list is refused as invalid input at the cursor field', async () => {
    const cursor = encodeCursor('payments', { key: new Date().toISOString(), id: 'pay_r_000001' });
    await expect(list({ cursor })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/cursor/) });
  });
});
