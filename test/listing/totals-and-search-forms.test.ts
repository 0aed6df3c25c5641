/**
 * What the bounded lists answer (issue 39 item 1, decision 25): a total exact
 * up to 10,000 and the flag above it, the first page only; each search form
 * finds what it should, and a search whose forms are read by separate
 * queries (domain/listing/page-query.ts) still pages every match once, in
 * order, and counts a row two forms match once. PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPayments } from '../support/bulk-payments';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let big: TestTenant;
let small: TestTenant;

const BIG = 10_050;

beforeAll(async () => {
  service = await startTestService();
  big = await createTenant(service);
  small = await createTenant(service);
  await insertPayments(service, big.environmentId, { count: BIG, prefix: 'b' });
  const sql = service.services.db.fork().getConnection();
  // 50 paid, so exactly 10,000 stay pending: the boundary of an exact total.
  await sql.execute(`update payments set status = 'paid' where environment_id = ? and id <= 'pay_b_000050'`, [big.environmentId]);
  await insertPayments(service, small.environmentId, { count: 12, prefix: 's' });
  const rows: [string, string, string, string, number][] = [
    // id suffix, externalId, customer name, e-mail, amount (cents)
    ['000001', 'mix-1', 'Ana Silva', 'Ana.Silva@Example.com', 2507],
    ['000002', 'order-2', 'Mixon Lima', 'lima@shop.test', 1000],
    ['000003', 'mix-3', 'João Souza', 'joao@shop.test', 2507],
    ['000004', 'order-4', 'Maria Mixed', 'maria@shop.test', 9990],
    ['000005', 'mix-5', 'Pedro Costa', 'pedro@shop.test', 1000],
    ['000006', 'order-6', 'JOAQUIM MIX', 'joaquim@shop.test', 1000],
  ];
  for (const [suffix, externalId, name, email, amount] of rows) {
    await sql.execute(`update payments set external_id = ?, customer_name = ?, customer_email = ?, amount = ? where id = ?`, [externalId, name, email, amount, `pay_s_${suffix}`]);
  }
}, 180_000);
afterAll(async () => {
  await service?.stop();
});

const list = (tenant: TestTenant, input: Record<string, unknown>) => service.admin.payments.list({ environmentId: tenant.environmentId, ...input } as never);
const found = async (search: string) => (await list(small, { search, limit: 100 })).items.map((p) => p.id).sort();
const s = (suffix: number) => `pay_s_${String(suffix).padStart(6, '0')}`;

describe('total (decision 25)', () => {
  it('over 10,000 matches: 10,000 and the flag, on the first page only', async () => {
    const first = await list(big, { limit: 10 });
    expect(first).toMatchObject({ total: 10_000, totalIsLowerBound: true });
    const second = await list(big, { limit: 10, cursor: first.nextCursor });
    expect(second).toMatchObject({ total: null, totalIsLowerBound: false });
  });

  it('exactly 10,000 or fewer: exact, no flag; a search counts its matches', async () => {
    expect(await list(big, { status: 'pending', limit: 1 })).toMatchObject({ total: 10_000, totalIsLowerBound: false });
    expect(await list(big, { status: 'paid', limit: 1 })).toMatchObject({ total: 50, totalIsLowerBound: false });
    // b-1, b-10…19, b-100…199, b-1000…1999, b-10000…10050
    expect(await list(big, { search: 'b-1', limit: 1 })).toMatchObject({ total: 1 + 10 + 100 + 1000 + 51, totalIsLowerBound: false });
  });
});

describe('search forms', () => {
  it('finds an exact id, an externalId by its start, an e-mail by its start whatever the case, an amount', async () => {
    expect(await found(s(7))).toEqual([s(7)]);
    expect(await found('order-')).toEqual([s(2), s(4), s(6)]);
    expect(await found('ANA.SILVA@EXAMPLE')).toEqual([s(1)]);
    expect(await found('@shop')).toEqual([]);
    expect(await found('25.07')).toEqual([s(1), s(3)]);
    expect(await found('25,07')).toEqual([s(1), s(3)]);
  });

  it('finds a name by any part of it whatever the case, accents as typed; fewer than 3 characters search no name', async () => {
    expect(await found('silva')).toEqual([s(1)]);
    expect(await found('JOÃO')).toEqual([s(3)]);
    expect(await found('oão sou')).toEqual([s(3)]);
    expect(await found('joao')).toEqual([]);
    expect(await found('joa')).toEqual([s(6)]);
    expect(await found('jo')).toEqual([]);
    expect(await found('mi')).toEqual([s(1), s(3), s(5)]);
  });

  it('a row two forms match is listed and counted once', async () => {
    // "mix": the externalIds mix-1, mix-3, mix-5 and the names Mixon, Mixed, MIX; then s(1) is named "Mix Both" too.
    const page = await list(small, { search: 'mix', limit: 100 });
    expect(page.items.map((p) => p.id).sort()).toEqual([s(1), s(2), s(3), s(4), s(5), s(6)]);
    expect(page.total).toBe(6);
    await service.services.db.fork().getConnection().execute(`update payments set customer_name = 'Mix Both' where id = ?`, [s(1)]);
    const again = await list(small, { search: 'mix', limit: 100 });
    expect(again.items.map((p) => p.id).sort()).toEqual([s(1), s(2), s(3), s(4), s(5), s(6)]);
    expect(again.total).toBe(6);
  });

  it('pages a search whose matches come from several forms: every row once, in the order asked, under each sort', async () => {
    for (const sort of ['created_desc', 'created_asc', 'amount_desc', 'amount_asc']) {
      const all = (await list(small, { search: 'mix', sort, limit: 100 })).items;
      const seen: typeof all = [];
      let cursor: string | null | undefined;
      do {
        const page = await list(small, { search: 'mix', sort, limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen.map((p) => p.id), sort).toEqual(all.map((p) => p.id));
      const keys = all.map((p) => (sort.startsWith('amount') ? p.amount : Date.parse(p.createdAt)));
      const ordered = [...keys].sort((a, b) => (sort.endsWith('asc') ? a - b : b - a));
      expect(keys, sort).toEqual(ordered);
    }
  });
});
