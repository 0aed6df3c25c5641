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
  // What support is told on the phone: the gateway's reference, the card's or the document's last 4, an order number in metadata.
  const support: [string, string, string | null, string, Record<string, unknown> | null][] = [
    // id suffix, gateway reference, card last 4, document last 4, metadata
    ['000007', 'pi_3Qx7Support', '4242', '4725', { orderNumber: 'PED-77881', channel: 'phone' }],
    ['000008', 'cob_8f2a9e', null, '4242', { orderNumber: 'PED-77882' }],
    ['000009', 'ch_99', '1234', '0000', null],
  ];
  for (const [suffix, gatewayRef, card, document, metadata] of support) {
    await sql.execute(`update payments set gateway_ref = ?, card_last4 = ?, customer_document_last4 = ?, metadata = ?, amount = ? where id = ?`, [
      gatewayRef, card, document, metadata === null ? null : JSON.stringify(metadata), 38690, `pay_s_${suffix}`,
    ]);
  }
  await sql.execute(`update payments set customer_email = 'cliente@uol.com.br', customer_name = 'Conceição Araújo' where id = ?`, ['pay_s_000010']);
  await sql.execute(`update payments set customer_email = 'outra@uol.com', amount = 123456 where id = ?`, ['pay_s_000011']);
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
    expect(await found('@SHOP')).toEqual([s(2), s(3), s(4), s(5), s(6)]);
    expect(await found('25.07')).toEqual([s(1), s(3)]);
    expect(await found('25,07')).toEqual([s(1), s(3)]);
  });

  it('finds a name by any part of it whatever the case and the accents; fewer than 3 characters search no name', async () => {
    expect(await found('silva')).toEqual([s(1)]);
    expect(await found('JOÃO')).toEqual([s(3)]);
    expect(await found('oão sou')).toEqual([s(3)]);
    expect(await found('joao')).toEqual([s(3)]);
    expect(await found('Joao Souza')).toEqual([s(3)]);
    expect(await found('conceicao ARAUJO')).toEqual([s(10)]);
    expect(await found('joa')).toEqual([s(3), s(6)]);
    expect(await found('jo')).toEqual([]);
    expect(await found('mi')).toEqual([s(1), s(3), s(5)]);
  });

  it("finds what support holds: the gateway's reference, a card's or document's last 4, a metadata value, exact", async () => {
    expect(await found('pi_3Qx7Support')).toEqual([s(7)]);
    expect(await found('cob_8f2a9e')).toEqual([s(8)]);
    expect(await found('pi_3Qx7')).toEqual([]);
    // "4242": the card of s(7) and the document of s(8); "4725": s(7)'s document, typed alone or as the whole CPF.
    expect(await found('4242')).toEqual([s(7), s(8)]);
    expect(await found('4725')).toEqual([s(7)]);
    expect(await found('529.982.247-25')).toEqual([s(7)]);
    expect(await found('52998224725')).toEqual([s(7)]);
    expect(await found('PED-77882')).toEqual([s(8)]);
    expect(await found('phone')).toEqual([s(7)]);
    expect(await found('PED-7788')).toEqual([]);
  });

  it('reads "1234" as every form it could be: a card\'s last 4 and an amount of 1,234.00', async () => {
    await service.services.db.fork().getConnection().execute(`update payments set amount = 123400 where id = ?`, [s(12)]);
    expect(await found('1234')).toEqual([s(12), s(9)].sort());
    expect(await found('1.234,56')).toEqual([s(11)]);
  });

  it('finds amounts as a Brazilian writes them, and as the dashboard shows them', async () => {
    for (const typed of ['R$ 386,90', 'R$386,90', '386,90', '386.90', 'r$ 386.90']) expect(await found(typed), typed).toEqual([s(7), s(8), s(9)]);
  });

  it('finds an e-mail typed without its @, or by its domain with or without the @', async () => {
    expect(await found('ana.silva')).toEqual([s(1)]);
    expect(await found('@uol.com.br')).toEqual([s(10)]);
    expect(await found('uol.com.br')).toEqual([s(10)]);
    expect(await found('@UOL.com')).toEqual([s(10), s(11)]);
    expect(await found('cliente@uol')).toEqual([s(10)]);
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
