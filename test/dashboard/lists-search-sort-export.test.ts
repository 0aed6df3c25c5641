/**
 * The payments list a merchant works with (issue 27, item 5): one search box
 * (id, externalId, customer e-mail, amount, name), the total the filter
 * matches, sorting by date or amount with cursors that belong to their sort,
 * and the CSV export of exactly the filtered, sorted list, streamed, for a
 * session that may read the environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { member, type Browser } from '../support/dashboard-sessions';
import { insertPayments } from '../support/bulk-payments';
import { PAYMENT_COLUMNS } from '../../server/domain/listing/export';
import { amountInCents } from '../../server/domain/listing/search';
import { csvCell } from '../../server/domain/listing/csv';

let service: TestService;
let tenant: TestTenant;
let other: TestTenant;
let big: TestTenant;
let viewer: Browser;
let outsider: Browser;

const ROWS = 60;
const BIG = 5_000;
const id = (n: number) => `pay_t_${String(n).padStart(6, '0')}`;

beforeAll(async () => {
  service = await startTestService();
  tenant = await createTenant(service);
  other = await createTenant(service);
  big = await createTenant(service);
  await insertPayments(service, tenant.environmentId, { count: ROWS, prefix: 't' });
  await insertPayments(service, other.environmentId, { count: 3, prefix: 'o' });
  await insertPayments(service, big.environmentId, { count: BIG, prefix: 'b' });
  const sql = service.services.db.fork().getConnection();
  await sql.execute(`update payments set customer_name = 'Ana Souza', customer_email = 'Ana.Souza@Example.com', amount = 4321 where id = ?`, [id(1)]);
  await sql.execute(`update payments set customer_name = 'João_100% Lima', customer_email = 'joao@shop.test' where id = ?`, [id(2)]);
  await sql.execute(`update payments set external_id = '=HYPERLINK("http://x")', customer_name = 'Smith, "Bob"', customer_email = '@evil.test' where id = ?`, [id(3)]);
  await sql.execute(`update payments set status = 'paid' where id in (?, ?)`, [id(4), id(5)]);
  await sql.execute(
    `insert into subscriptions (id, environment_id, external_id, gateway, amount, currency, interval, status, request_hash, customer_name, customer_email, created_at, updated_at)
     values ('sub_t_1', ?, 'plan-1', 'gateway_b', 4990, 'BRL', 'monthly', 'active', repeat('0', 64), 'Ana Souza', 'ana.souza@example.com', now(), now()),
            ('sub_t_2', ?, 'plan-2', 'gateway_b', 1990, 'BRL', 'monthly', 'active', repeat('0', 64), 'Bia Lima', 'bia@example.com', now(), now()),
            ('sub_t_3', ?, 'plan-3', 'gateway_b', 4990, 'BRL', 'yearly', 'canceled', repeat('0', 64), '-Zed', '=cmd@example.com', now(), now())`,
    [tenant.environmentId, tenant.environmentId, tenant.environmentId],
  );
  viewer = await member(service, tenant.organizationId, 'viewer');
  outsider = await member(service, other.organizationId, 'owner');
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

const list = (input: Record<string, unknown>) => service.admin.payments.list({ environmentId: tenant.environmentId, limit: 100, ...input } as never);
const ids = async (search: string) => (await list({ search })).items.map((p) => p.id).sort();

describe('search', () => {
  it('reads a typed amount in major units: 25, 25.00 and 25,0 are 2500 cents, thousands grouped either way; other text is no amount', () => {
    expect([amountInCents('25'), amountInCents('25.00'), amountInCents('25,0'), amountInCents('43.21'), amountInCents('0,5')]).toEqual([2500, 2500, 2500, 4321, 50]);
    expect([amountInCents('1,234.56'), amountInCents('1.234,56'), amountInCents('1,234'), amountInCents('1.234'), amountInCents('1,234,567.8')]).toEqual([123456, 123456, 123400, 123400, 123456780]);
    expect(amountInCents('25.001')).toBe(2500100);
    // As a Brazilian writes an amount: the currency before it, with or without a space.
    expect([amountInCents('R$ 5'), amountInCents('R$386,90'), amountInCents('r$ 1.234,56')]).toEqual([500, 38690, 123456]);
    expect([amountInCents('25.0001'), amountInCents('1,23,456'), amountInCents('1,234,56'), amountInCents('-5'), amountInCents('R$'), amountInCents('')]).toEqual([null, null, null, null, null, null]);
  });

  it('finds by e-mail (case-insensitive, whole or its start), name (any part, any case), amount, id and externalId prefix', async () => {
    expect(await ids('ana.souza@example.COM')).toEqual([id(1)]);
    expect(await ids('ANA.SOUZA@')).toEqual([id(1)]);
    expect(await ids('@evil')).toEqual([id(3)]);
    expect(await ids('souza')).toEqual([id(1)]);
    expect(await ids('bulk customer 4')).toEqual([4, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49].map(id).sort());
    expect(await ids('43.21')).toEqual([id(1)]);
    expect(await ids('43,21')).toEqual([id(1)]);
    const all = (await list({})).items;
    expect(await ids('25')).toEqual(all.filter((p) => p.amount === 2500).map((p) => p.id).sort());
    expect(await ids('25.00')).toEqual(await ids('25'));
    expect(await ids(id(7))).toEqual([id(7)]);
    expect(await ids('t-5')).toEqual([5, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59].map(id).sort());
  });

  it('keeps %, _ and \\ literal, and never reaches another environment', async () => {
    expect(await ids('_100%')).toEqual([id(2)]);
    expect(await ids('00%')).toEqual([id(2)]);
    // Fewer than three characters search ids and externalIds only, no name (search.ts NAME_MIN: no trigram to use).
    expect(await ids('%')).toEqual([]);
    expect(await ids('J_ão')).toEqual([]);
    expect(await ids('\\')).toEqual([]);
    expect(await ids('o-1')).toEqual([]);
    expect(await ids('pay_o_000001')).toEqual([]);
  });
});

describe('total', () => {
  it('counts exactly the rows the filter lists, on the first page only', async () => {
    for (const filter of [{}, { search: '25' }, { status: 'paid' }, { search: 't-5', sort: 'amount_asc' }, { search: 'nothing at all' }, { status: 'paid', search: 'bulk customer 5' }]) {
      const page = await list({ ...filter, limit: 100 });
      expect(page.total, JSON.stringify(filter)).toBe(page.items.length);
    }
    const first = await list({ limit: 10 });
    expect(first.total).toBe(ROWS);
    const second = await list({ limit: 10, cursor: first.nextCursor });
    expect(second.total).toBeNull();
  });
});

describe('sort', () => {
  const walk = async (sort: string, limit: number) => {
    const seen: { id: string; amount: number; createdAt: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await list({ sort, limit, cursor });
      seen.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return seen;
  };

  for (const sort of ['amount_asc', 'amount_desc', 'created_asc', 'created_desc'] as const) {
    it(`${sort}: pages of 7 give every row exactly once, in order, across equal keys`, async () => {
      const rows = await walk(sort, 7);
      expect(rows).toHaveLength(ROWS);
      expect(new Set(rows.map((r) => r.id)).size).toBe(ROWS);
      const key = (r: (typeof rows)[number]) => (sort.startsWith('amount') ? r.amount : Date.parse(r.createdAt));
      const sign = sort.endsWith('asc') ? 1 : -1;
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [rows[i - 1]!, rows[i]!];
        const order = Math.sign(key(b) - key(a)) * sign || (b.id > a.id ? sign : -sign);
        expect(order, `${a.id} then ${b.id}`).toBe(1);
      }
    });
  }

  it('a cursor of one sort, given with another, is a 400 that says so', async () => {
    const page = await list({ sort: 'amount_asc', limit: 5 });
    for (const sort of [undefined, 'amount_desc', 'created_asc']) {
      const reply = await viewer.call('payments.list', { environmentId: tenant.environmentId, limit: 5, cursor: page.nextCursor, ...(sort ? { sort } : {}) });
      expect(reply.status, String(sort)).toBe(400);
      expect(reply.body).toMatchObject({ error: 'invalid_input', message: expect.stringMatching(/another sort order/) });
    }
    const reply = await viewer.call('payments.list', { environmentId: tenant.environmentId, sort: 'by_mood' });
    expect(reply.status).toBe(400);
  });
});

/** Splits CSV text per RFC 4180 (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    else cell += c;
  }
  if (cell || row.length) row.push(cell), rows.push(row);
  return rows;
}

const exportUrl = (environmentId: string, params: Record<string, string> = {}) => `${service.url}/internal/export/payments.csv?${new URLSearchParams({ environmentId, ...params })}`;
const download = (url: string, who: Browser | null, headers: Record<string, string> = {}) => fetch(url, { headers: { ...(who ? { cookie: who.cookie } : {}), ...headers } });

describe('CSV export', () => {
  it('quotes per RFC 4180 and defuses formulas, cell by cell', () => {
    expect(['plain', 'a,b', 'say "hi"', 'two\r\nlines', '=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', 'ok=1'].map(csvCell)).toEqual([
      'plain', '"a,b"', '"say ""hi"""', '"two\r\nlines"', "'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx", `"'\rx"`, 'ok=1',
    ]);
    expect([csvCell(-12), csvCell(null), csvCell(true)]).toEqual(['-12', '', 'true']);
  });

  it('downloads the whole list as an attachment: header row, UTF-8, amounts in major units, ISO times, quoting and the formula guard', async () => {
    const response = await download(exportUrl(tenant.environmentId), viewer);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="payments-Test-project-sandbox-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = await response.text();
    const rows = parseCsv(text);
    expect(rows[0]).toEqual([...PAYMENT_COLUMNS]);
    expect(rows).toHaveLength(ROWS + 1);
    const byId = new Map(rows.slice(1).map((row) => [row[0], Object.fromEntries(PAYMENT_COLUMNS.map((c, i) => [c, row[i]]))]));
    expect(byId.get(id(1))).toMatchObject({ amount: '43.21', currency: 'BRL', customerName: 'Ana Souza', customerEmail: 'Ana.Souza@Example.com', amountRefunded: '0.00' });
    expect(byId.get(id(1))!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(byId.get(id(2))!.customerName).toBe('João_100% Lima');
    expect(byId.get(id(3))).toMatchObject({ externalId: `'=HYPERLINK("http://x")`, customerName: 'Smith, "Bob"', customerEmail: "'@evil.test" });
    expect(text).toContain(`"'=HYPERLINK(""http://x"")"`);
    // Newest first, as the list.
    expect(rows[1]![0]).toBe(id(ROWS));
  });

  it('honours the filter and the sort', async () => {
    const bySearch = parseCsv(await (await download(exportUrl(tenant.environmentId, { search: 'souza' }), viewer)).text());
    expect(bySearch.slice(1).map((r) => r[0])).toEqual([id(1)]);
    const paid = parseCsv(await (await download(exportUrl(tenant.environmentId, { status: 'paid', sort: 'created_asc' }), viewer)).text());
    expect(paid.slice(1).map((r) => r[0])).toEqual([id(4), id(5)]);
    const byAmount = parseCsv(await (await download(exportUrl(tenant.environmentId, { sort: 'amount_desc' }), viewer)).text()).slice(1);
    const listed = [];
    let cursor: string | undefined;
    do {
      const page = await list({ sort: 'amount_desc', limit: 100, cursor });
      listed.push(...page.items.map((p) => p.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(byAmount.map((r) => r[0])).toEqual(listed);
  });

  it("needs a session that may read the environment: none is 401, another organization's is 404, a cross-site call 403, a bad filter 400", async () => {
    const anonymous = await download(exportUrl(tenant.environmentId), null);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'unauthorized' });
    const foreign = await download(exportUrl(tenant.environmentId), outsider);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: 'not_found' });
    const crossSite = await download(exportUrl(tenant.environmentId), viewer, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const badSort = await download(exportUrl(tenant.environmentId, { sort: 'by_mood' }), viewer);
    expect(badSort.status).toBe(400);
    expect(await badSort.json()).toMatchObject({ error: 'invalid_input' });
    const unknown = await download(exportUrl(tenant.environmentId, { limit: '5' }), viewer);
    expect(unknown.status).toBe(400);
    // Its own environment still works for the outsider.
    expect((await download(exportUrl(other.environmentId), outsider)).status).toBe(200);
  });

  it('streams 5,000 rows in many chunks, each row once', async () => {
    const owner = await member(service, big.organizationId, 'viewer');
    const response = await download(exportUrl(big.environmentId, { sort: 'amount_asc' }), owner);
    expect(response.status).toBe(200);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(response.headers.get('content-length')).toBeNull();
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let chunks = 0;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks++;
      text += decoder.decode(value, { stream: true });
    }
    expect(chunks).toBeGreaterThan(1);
    const rows = parseCsv(text);
    expect(rows).toHaveLength(BIG + 1);
    expect(new Set(rows.slice(1).map((r) => r[0])).size).toBe(BIG);
    const amounts = rows.slice(1).map((r) => Number(r[PAYMENT_COLUMNS.indexOf('amount')]));
    expect(amounts.every((a, i) => i === 0 || a >= amounts[i - 1]!)).toBe(true);
  }, 120_000);

  it('exports subscriptions the same way: their filter, search, sort, formula guard', async () => {
    const url = (params: Record<string, string>) => `${service.url}/internal/export/subscriptions.csv?${new URLSearchParams({ environmentId: tenant.environmentId, ...params })}`;
    const all = await download(url({ sort: 'amount_asc' }), viewer);
    expect(all.status).toBe(200);
    expect(all.headers.get('content-disposition')).toMatch(/filename="subscriptions-Test-project-sandbox-/);
    const rows = parseCsv(await all.text());
    expect(rows[0]![0]).toBe('id');
    expect(rows.slice(1).map((r) => r[0])).toEqual(['sub_t_2', 'sub_t_1', 'sub_t_3']);
    expect(rows.find((r) => r[0] === 'sub_t_3')).toContain("'-Zed");
    expect(rows.find((r) => r[0] === 'sub_t_3')).toContain("'=cmd@example.com");
    const found = parseCsv(await (await download(url({ search: 'ANA.SOUZA@example.com' }), viewer)).text());
    expect(found.slice(1).map((r) => r[0])).toEqual(['sub_t_1']);
    const byAmount = parseCsv(await (await download(url({ search: '49.90', status: 'active' }), viewer)).text());
    expect(byAmount.slice(1).map((r) => r[0])).toEqual(['sub_t_1']);
    const listed = await service.admin.subscriptions.list({ environmentId: tenant.environmentId, search: '49,9' } as never);
    expect(listed.items.map((s) => s.id).sort()).toEqual(['sub_t_1', 'sub_t_3']);
    expect(listed.total).toBe(2);
    expect((await download(url({}), outsider)).status).toBe(404);
  });
});
