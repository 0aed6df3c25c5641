/**
 * The CSV export as PostgreSQL writes it (issue 39 item 2: COPY streamed as
 * bytes, listing/copy-export.ts): the same bytes as the batched path PGlite
 * keeps, for rows holding everything a cell can (line breaks, quotes,
 * formulas, empty text, microseconds); a search holding quotes, backslashes
 * and `$1` is the text typed, not SQL; a download abandoned halfway stops
 * its COPY on the server and gives the connection back; and the export reads
 * the read replica when there is one. The search case runs on both
 * databases; the rest is PostgreSQL's.
 */
import { request } from 'node:http';
import pg, { type Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/orm';
import { inlineBindings } from '../../server/domain/listing/copy-export';
import { exportPayments, exportSubscriptions } from '../../server/domain/listing/export';
import { insertPayments } from '../support/bulk-payments';
import { member, type Browser } from '../support/dashboard-sessions';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/database';
import { eventually } from '../support/outbox-events';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
let viewer: Browser;

const id = (n: number) => `pay_c_${String(n).padStart(6, '0')}`;
const sql = (text: string, params: unknown[] = []) => service.services.db.fork().getConnection().execute(text, params);

beforeAll(async () => {
  service = await startTestService();
  tenant = await createTenant(service);
  viewer = await member(service, tenant.organizationId, 'viewer');
  await insertPayments(service, tenant.environmentId, { count: 20, prefix: 'c' });
  // Every kind of text a cell can hold.
  const names = [
    'Line one\nline two', 'CR\r\nLF', 'tab\tinside', '\tstarts with a tab', '\rstarts with CR', '-minus', '+plus', '=1+1',
    '@at', 'say "hi", twice ""', 'back\\slash', '$1 dollar ?', '', 'Zoë Ünicode ✓', 'a,b', 'ok=1',
  ];
  for (const [i, name] of names.entries()) await sql(`update payments set customer_name = ? where id = ?`, [name, id(i + 1)]);
  await sql(`update payments set customer_email = '', card_brand = 'visa', card_last4 = null where id = ?`, [id(1)]);
  await sql(`update payments set customer_email = null, card_brand = 'visa', card_last4 = '4242', method = 'card', status = 'paid' where id = ?`, [id(2)]);
  await sql(`update payments set card_brand = '', card_last4 = '4242', amount = 5, amount_refunded = 250 where id = ?`, [id(3)]);
  await sql(`update payments set created_at = '2026-01-02 03:04:05.678999+00', paid_at = '2026-01-02 03:04:06.000001+00', updated_at = '2026-01-02 03:04:07.9995+00', subscription_id = 'sub_x', gateway_ref = '-ref' where id = ?`, [id(4)]);
  await sql(`update payments set external_id = ? where id = ?`, [`it's \\ $1 '' ? done`, id(5)]);
  await sql(`update payments set external_id = ?, customer_email = ? where id = ?`, [`it's \\ $2`, `o'brien\\$1@x.test`, id(6)]);
  await sql(
    `insert into subscriptions (id, environment_id, external_id, gateway, amount, currency, interval, status, request_hash, customer_name, customer_email, next_billing_at, cancel_at_period_end, canceled_at, created_at, updated_at)
     values ('sub_c_1', ?, '=plan', 'gateway_b', 4990, 'BRL', 'monthly', 'active', repeat('0', 64), E'Ana\\nSouza', '', now() + interval '1 month', true, null, now(), now()),
            ('sub_c_2', ?, 'plan-2', 'gateway_b', 7, 'BRL', 'yearly', 'canceled', repeat('0', 64), null, '"q"@example.com', now() + interval '1 year', false, '2026-03-04 05:06:07.123456+00', now(), now())`,
    [tenant.environmentId, tenant.environmentId],
  );
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

/** The file an export writes, as text. */
async function exported(run: (out: { write(chunk: string | Buffer): Promise<void>; signal: AbortSignal }) => Promise<void>): Promise<string> {
  const chunks: Buffer[] = [];
  await run({ write: async (chunk) => void chunks.push(Buffer.from(chunk)), signal: new AbortController().signal });
  return Buffer.concat(chunks).toString('utf8');
}

const downloadCsv = (params: Record<string, string>, list = 'payments') =>
  fetch(`${service.url}/internal/export/${list}.csv?${new URLSearchParams({ environmentId: tenant.environmentId, ...params })}`, { headers: { cookie: viewer.cookie } });

describe('a search holding quotes, backslashes and $1', () => {
  it('finds what was typed, literally, and nothing for text that would be SQL', async () => {
    const lines = async (search: string) => (await (await downloadCsv({ search })).text()).split('\r\n').filter(Boolean).slice(1).map((line) => line.slice(0, line.indexOf(',')));
    expect(await lines(`it's \\ $1`)).toEqual([id(5)]);
    expect(await lines(`it's \\`)).toEqual([id(6), id(5)]);
    expect(await lines(`o'brien\\$1@`)).toEqual([id(6)]);
    expect(await lines(`' or ''='`)).toEqual([]);
    expect(await lines(`$1`)).toEqual([]);
  });
});

describe('bindings written into the COPY', () => {
  it('places each binding once, as a literal, a question mark the builder escaped kept as one', () => {
    expect(inlineBindings('a = ? and b = ? and c \\? d', [`it's`, 2])).toBe(`a = 'it''s' and b = '2' and c ? d`);
    expect(inlineBindings('x = ?', [new Date('2026-01-02T03:04:05.678Z')])).toBe(`x = '2026-01-02T03:04:05.678Z'`);
    // The driver's escaping: a backslash makes it an E'' string, doubled.
    expect(inlineBindings('x = ?', [`back\\slash`])).toBe(`x =  E'back\\\\slash'`);
    expect(() => inlineBindings('a = ? and b = ?', [1])).toThrow(/more placeholders/);
    expect(() => inlineBindings('a = ?', [1, 2])).toThrow(/more bindings/);
    expect(() => inlineBindings('a = ?', [{}])).toThrow(/binding of type object/);
  });

  it.skipIf(!onPostgres)('reads back from PostgreSQL exactly the values bound', async () => {
    const values = [`it's`, `back\\slash \\' ''`, `$1 ? $2`, `E'\\n'`, 'Zoë'];
    const rows = await sql(inlineBindings(`select ${values.map((_, i) => `?::text as v${i}`).join(', ')}`, values));
    expect(Object.values(rows[0] as object)).toEqual(values);
  });
});

describe.skipIf(!onPostgres)('written by PostgreSQL (COPY)', () => {
  const db = () => service.services.db;
  /** The same database read by PGlite's path: batches formatted in JavaScript. */
  const batched = (): Database => ({ ...db(), kind: 'pglite' });
  const environmentId = () => tenant.environmentId;

  it('writes byte for byte what the batched path writes, for every sort, filter and search', async () => {
    const filters = [
      { sort: 'created_desc' as const },
      { sort: 'created_asc' as const, status: 'paid' as const },
      { sort: 'amount_desc' as const },
      { sort: 'amount_asc' as const, search: 'line' },
      { sort: 'created_desc' as const, search: `it's \\` },
    ];
    for (const filter of filters) {
      const copied = await exported((out) => exportPayments(db(), { environmentId: environmentId(), ...filter }, out));
      expect(copied.split('\r\n').length, JSON.stringify(filter)).toBeGreaterThan(2);
      expect(copied, JSON.stringify(filter)).toBe(await exported((out) => exportPayments(batched(), { environmentId: environmentId(), ...filter }, out)));
    }
    const subscriptions = await exported((out) => exportSubscriptions(db(), { environmentId: environmentId(), sort: 'amount_asc' }, out));
    expect(subscriptions).toBe(await exported((out) => exportSubscriptions(batched(), { environmentId: environmentId(), sort: 'amount_asc' }, out)));
    // What the equality covers, seen in the file.
    const all = await exported((out) => exportPayments(db(), { environmentId: environmentId(), sort: 'created_desc' }, out));
    expect(all).toContain(`"Line one\nline two"`);
    expect(all).toContain(`"CR\r\nLF"`);
    expect(all).toContain(`,'=1+1,`);
    expect(all).toContain(`"say ""hi"", twice """""`);
    expect(all).toContain(`${id(3)},c-3,pending,pix,gateway_a,0.05,2.50,BRL,`);
    expect(all).toContain(',2026-01-02T03:04:05.678Z,2026-01-02T03:04:06.000Z,2026-01-02T03:04:07.999Z\r\n');
    expect(subscriptions).toContain(`sub_c_2,plan-2,canceled,yearly,gateway_b,0.07,BRL,,"""q""@example.com",,false,2026-03-04T05:06:07.123Z,`);
    expect(subscriptions).toContain(`"Ana\nSouza",,`);
  });

  it('stops the COPY on the server when the browser leaves halfway, and gives its connection back', async () => {
    const big = await createTenant(service);
    const owner = await member(service, big.organizationId, 'viewer');
    // Far more than the sockets between PostgreSQL, the service and this test buffer: the COPY waits on the reader.
    await insertPayments(service, big.environmentId, { count: 100_000, prefix: 'big' });
    const copies = async () =>
      (await sql(`select state, wait_event from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like 'copy (select%'`)) as { state: string; wait_event: string | null }[];
    const pool = await (service.services.db.root.getConnection() as unknown as { getNativeClient(): Promise<Pool> }).getNativeClient();

    const url = new URL(`${service.url}/internal/export/payments.csv?environmentId=${big.environmentId}`);
    const abandoned = request(url, { headers: { cookie: owner.cookie } });
    const firstChunk = new Promise<void>((resolve, reject) => {
      abandoned.on('response', (response) => {
        expect(response.statusCode).toBe(200);
        response.once('data', () => {
          response.pause(); // reads no more: the service, then PostgreSQL, wait on this reader
          resolve();
        });
      });
      abandoned.on('error', reject);
    });
    abandoned.end();
    await firstChunk;
    const running = await eventually(async () => ((await copies()).some((copy) => copy.state === 'active') ? await copies() : undefined), 30_000, 'the COPY running');
    expect(running).toHaveLength(1);

    abandoned.destroy();
    await eventually(async () => (await copies()).length === 0, 15_000, 'the COPY to end once the download was abandoned');
    await eventually(async () => pool.totalCount - pool.idleCount === 0 && pool.waitingCount === 0, 15_000, "the export's connection back in the pool");
    expect(service.logs()).toContain('CSV export stopped');

    // The pool still serves whole exports.
    const again = await downloadCsv({ status: 'paid' });
    expect(again.status).toBe(200);
    expect((await again.text()).split('\r\n')[0]).toMatch(/^id,externalId,/);
  }, 180_000);

  describe('with a read replica', () => {
    let primary: TestDatabase;
    let replica: TestDatabase;
    let replicated: TestService;
    let reader: Browser;
    let replicaEnvironment: string;

    beforeAll(async () => {
      // A second database stands for the replica: it holds a payment the primary does not, so a file that has it was read there.
      replica = await createTestDatabase({ migrated: true });
      primary = await createTestDatabase({ migrated: true });
      if (primary.config.kind !== 'postgresql' || replica.config.kind !== 'postgresql') throw new Error('PostgreSQL only');
      replicated = await startTestService({ database: { ...primary, config: { ...primary.config, replicaUrls: [replica.config.url] } } });
      const own = await createTenant(replicated);
      reader = await member(replicated, own.organizationId, 'viewer');
      await insertPayments(replicated, own.environmentId, { count: 2, prefix: 'primary' });
      const client = new pg.Client({ connectionString: replica.config.url });
      await client.connect();
      try {
        // The replica has no tenant rows of its own: its foreign keys are not what this is about.
        await client.query(`set session_replication_role = replica`);
        await client.query(
          `insert into payments (id, environment_id, external_id, method, gateway, amount, currency, status, request_hash, created_at, updated_at)
           values ('pay_only_on_replica', $1, 'replica-1', 'pix', 'gateway_a', 100, 'BRL', 'pending', repeat('0', 64), now(), now())`,
          [own.environmentId],
        );
      } finally {
        await client.end();
      }
      replicaEnvironment = own.environmentId;
    }, 120_000);

    afterAll(async () => {
      await replicated?.stop();
      await primary?.drop();
      await replica?.drop();
    });

    it("reads the replica's rows", async () => {
      const response = await fetch(`${replicated.url}/internal/export/payments.csv?environmentId=${replicaEnvironment}`, { headers: { cookie: reader.cookie } });
      expect(response.status).toBe(200);
      const ids = (await response.text()).split('\r\n').filter(Boolean).slice(1).map((line) => line.slice(0, line.indexOf(',')));
      expect(ids).toEqual(['pay_only_on_replica']);
    });
  });
});
