/**
 * GET /v1/events (decision 19) on a real service with the sandbox gateways:
 * a receiver that was down reads what it missed, exactly as it would have
 * been delivered, in order, page by page, and nothing of another environment.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents, SETTLE_MS } from '../../server/domain/events-feed/list';
import { commitPaymentEvents, eventually, newPaymentId } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant, type TestTenant } from '../support/tenant';
import { onPostgres } from '../support/database';

let world: SandboxedService;
let receiver: Receiver;
let other: TestTenant;

const customer = { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' };

async function get(key: string, query: string): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${world.service.url}/v1/events${query}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** Every event after `after`, page by page with `limit`; fails if a page repeats an id. */
async function readAll(key: string, params: Record<string, string>): Promise<any[]> {
  const events: any[] = [];
  let after = params.after;
  for (let page = 0; page < 200; page++) {
    const query = new URLSearchParams({ ...params, ...(after ? { after } : {}) });
    const { status, body } = await get(key, `?${query}`);
    expect(status).toBe(200);
    events.push(...body.data);
    if (!body.hasMore) return events;
    expect(body.nextCursor).toBe(body.data.at(-1).id);
    after = body.nextCursor;
  }
  throw new Error('too many pages');
}

async function createPix(n: number) {
  const response = await fetch(`${world.service.url}/v1/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1000 + n, method: 'pix', customer, externalId: `catch-up-${n}-${Math.random().toString(36).slice(2)}` }),
  });
  expect(response.status).toBe(201);
  return response.json();
}

let firstSeen: string;
let missed: { id: string; body: string }[];

beforeAll(async () => {
  world = await startSandboxedService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '200' }, routes: { PIX: 'gateway_a' } });
  other = await createTenant(world.service);
  receiver = await startReceiver();
  const endpoint = await world.service.admin.webhooks.createEndpoint({ environmentId: world.tenant.environmentId, url: receiver.url() });

  // The receiver is up for the first payment's two events, then goes down while 25 more payments make 50 events.
  await createPix(0);
  const seen = await receiver.waitFor(2);
  firstSeen = seen[1]!.json.id;
  await receiver.close();
  for (let n = 1; n <= 25; n++) await createPix(n);
  // Meanwhile another environment has events of its own.
  await commitPaymentEvents(world.service, other.environmentId, newPaymentId(), ['created', 'pending', 'paid']);

  // What the failed deliveries carried: the stored bodies, the bytes that were sent.
  const em = world.service.services.db.fork();
  missed = await eventually(async () => {
    const rows = await em.execute<{ id: string; body: string | null; status: string; sequence: string | number }[]>(
      `select e.id, d.body, d.status, e.sequence from webhook_deliveries d join events e on e.id = d.event_id where d.endpoint_id = ? order by e.sequence`,
      [endpoint.id],
    );
    return rows.length === 52 && rows.every((row) => row.status !== 'PENDING' && row.body) ? rows.slice(2).map((row) => ({ id: row.id, body: row.body! })) : undefined;
  }, 30_000, 'the deliveries to fail');
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await world?.stop();
});

describe('GET /v1/events', () => {
  it('gives a receiver that was down exactly the 50 events it missed, in order, byte for byte what was delivered', async () => {
    const { status, body, headers } = await get(world.tenant.apiKey, `?after=${firstSeen}&limit=100`);
    expect(status).toBe(200);
    expect(body.hasMore).toBe(false);
    expect(body.data).toHaveLength(50);
    expect(body.data.map((event: any) => event.id)).toEqual(missed.map((m) => m.id));
    // Each item is the delivered envelope itself: same fields, same order, same bytes.
    for (const [i, event] of body.data.entries()) expect(JSON.stringify(event)).toBe(missed[i]!.body);
    expect(body.data.map((event: any) => event.type)).toEqual(Array.from({ length: 25 }, () => ['payment.created', 'payment.pending']).flat());
    expect(body.nextCursor).toBe(missed.at(-1)!.id);
    // The default per-key bucket, like every route without a limit of its own.
    expect(headers.get('x-ratelimit-limit')).toBe(String(world.service.config.rateLimits.default));
    expect(Number(headers.get('x-ratelimit-remaining'))).toBeLessThan(world.service.config.rateLimits.default);

    // Caught up: asking again from the last one gives nothing, and keeps the cursor.
    const after = await get(world.tenant.apiKey, `?after=${body.nextCursor}`);
    expect(after.body).toEqual({ data: [], hasMore: false, nextCursor: body.nextCursor });
  });

  it('pages with small limits return each event once, oldest first, from the very first without after', async () => {
    const everything = await readAll(world.tenant.apiKey, { limit: '100' });
    expect(everything).toHaveLength(52);
    expect(everything.slice(2).map((e) => e.id)).toEqual(missed.map((m) => m.id));
    for (const limit of ['1', '7', '50']) {
      const paged = await readAll(world.tenant.apiKey, { limit });
      expect(paged.map((e) => e.id), `limit ${limit}`).toEqual(everything.map((e) => e.id));
    }
    const first = await get(world.tenant.apiKey, '?limit=3');
    expect(first.body).toMatchObject({ hasMore: true, nextCursor: everything[2].id });
    expect(first.body.data).toEqual(everything.slice(0, 3));
    // The default page is 50.
    expect((await get(world.tenant.apiKey, '')).body.data).toHaveLength(50);
  });

  it('filters one event type', async () => {
    const pending = await readAll(world.tenant.apiKey, { type: 'payment.pending', limit: '10' });
    const everything = await readAll(world.tenant.apiKey, {});
    expect(pending).toHaveLength(26);
    expect(pending).toEqual(everything.filter((e) => e.type === 'payment.pending'));
    const afterFirst = await readAll(world.tenant.apiKey, { type: 'payment.pending', after: firstSeen });
    expect(afterFirst.map((e) => e.id)).toEqual(pending.slice(1).map((e) => e.id));
    expect((await get(world.tenant.apiKey, '?type=payment.paid')).body).toEqual({ data: [], hasMore: false, nextCursor: null });
  });

  it("never shows another environment's events, nor accepts one of its ids as a cursor", async () => {
    const mine = await readAll(world.tenant.apiKey, {});
    const theirs = await readAll(other.apiKey, {});
    expect(theirs.map((e) => e.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
    const mineIds = new Set(mine.map((e) => e.id));
    expect(theirs.some((e) => mineIds.has(e.id))).toBe(false);
    expect(mine.every((e) => e.data.provider === 'gateway_a')).toBe(true);

    const crossed = await get(world.tenant.apiKey, `?after=${theirs[0].id}`);
    expect(crossed.status).toBe(400);
    expect(crossed.body).toEqual({ error: 'invalid_input', message: expect.any(String), issues: [{ path: ['after'], message: expect.stringContaining('not an event of this environment') }] });
    // The same answer as an id that never existed: nothing tells what exists elsewhere.
    const unknown = await get(world.tenant.apiKey, `?after=evt_${'0'.repeat(24)}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues).toEqual(crossed.body.issues);
  });

  it.each([
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['limit=abc', ['limit']],
    ['limit=1.5', ['limit']],
    ['limit=-1', ['limit']],
    ['limit=1e2', ['limit']],
    ['type=payment.refunded', ['type']],
    ['type=PAYMENT.PAID', ['type']],
    ['after=nope', ['after']],
    ['after=pay_000000000000000000000000', ['after']],
  ])('?%s is 400 invalid_input at %j', async (query, path) => {
    const { status, body } = await get(world.tenant.apiKey, `?${query}`);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_input');
    expect(body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([path]);
    expect(Object.keys(body).sort()).toEqual(['error', 'issues', 'message']);
  });

  it('is in the OpenAPI document with its example, its errors and the reading of decision 19', async () => {
    const document: any = await (await fetch(`${world.service.url}/v1/openapi.json`)).json();
    const operation = document.paths['/v1/events'].get;
    expect(operation.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['after', 'limit', 'type']);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '429', '500', '503']);
    expect(operation.responses['200'].content['application/json'].examples.eventPage.value.data[0].id).toMatch(/^evt_/);
    expect(document.info.description).toContain('Catching up on events');
  });

  it('needs an API key', async () => {
    const response = await fetch(`${world.service.url}/v1/events`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'unauthorized' });
  });
});

describe('events committed out of sequence order', () => {
  it('a page stops before a number still in flight, so the event that commits late is not skipped', async () => {
    const em = world.service.services.db.fork();
    const tenant = await createTenant(world.service);
    const [before] = await commitPaymentEvents(world.service, tenant.environmentId, newPaymentId(), ['created']);
    // A transaction numbered its event and has not committed yet: its sequence is taken, its row not visible.
    const [taken] = await em.execute<{ held: string }[]>(`select nextval(pg_get_serial_sequence('events', 'sequence')) as held`);
    const held = taken!.held;
    const [after] = await commitPaymentEvents(world.service, tenant.environmentId, newPaymentId(), ['created']);
    expect(Number(after!.sequence)).toBeGreaterThan(Number(held));

    const now = Date.now();
    const early = await listEvents(em, tenant.environmentId, {}, 30, now);
    expect(early.data.map((e) => e.id)).toEqual([before!.id]);
    expect(early.hasMore).toBe(false);
    expect((await listEvents(em, tenant.environmentId, { after: before!.id }, 30, now)).data).toEqual([]);

    // It commits: the reader that stopped at `before` now gets both, in sequence order.
    const lateId = `evt_${'l'.repeat(24)}`;
    await em.execute(
      `insert into events (id, sequence, environment_id, type, resource_id, data, created_at) values (?, ?, ?, 'payment.created', 'pay_late', '{"late":true}', ?)`,
      [lateId, held, tenant.environmentId, new Date()],
    );
    const caughtUp = await listEvents(em, tenant.environmentId, { after: before!.id }, 30, now);
    expect(caughtUp.data.map((e) => e.id)).toEqual([lateId, after!.id]);
  });

  it.runIf(onPostgres)('on PostgreSQL, a transaction that commits after a later-numbered one is listed, not skipped', async () => {
    const tenant = await createTenant(world.service);
    const [first] = await commitPaymentEvents(world.service, tenant.environmentId, newPaymentId(), ['created']);
    const database = world.service.config.database as { url: string };
    const slow = new pg.Client({ connectionString: database.url });
    await slow.connect();
    try {
      // A transaction numbers its event and has not committed yet when a later one commits.
      await slow.query('begin');
      const { rows } = await slow.query(
        `insert into events (id, environment_id, type, resource_id, data, created_at) values ($1, $2, 'payment.created', 'pay_slow', '{"slow":true}', now()) returning sequence`,
        [`evt_${'s'.repeat(24)}`, tenant.environmentId],
      );
      const [later] = await commitPaymentEvents(world.service, tenant.environmentId, newPaymentId(), ['created']);
      expect(Number(later!.sequence)).toBeGreaterThan(Number(rows[0].sequence));

      // A reader that saw `first` is not moved past the uncommitted number...
      const whileOpen = await get(tenant.apiKey, `?after=${first!.id}`);
      expect(whileOpen.body).toEqual({ data: [], hasMore: false, nextCursor: first!.id });
      await slow.query('commit');
      // ...so once it commits, the reader gets both, in sequence order.
      const after = await get(tenant.apiKey, `?after=${first!.id}`);
      expect(after.body.data.map((e: any) => e.id)).toEqual([`evt_${'s'.repeat(24)}`, later!.id]);
    } finally {
      await slow.end();
    }
  });

  it(`a number that never commits (a rollback) holds the events after it back for ${SETTLE_MS / 1000} s only`, async () => {
    const em = world.service.services.db.fork();
    const tenant = await createTenant(world.service);
    await em.execute(`select nextval(pg_get_serial_sequence('events', 'sequence'))`);
    const [event] = await commitPaymentEvents(world.service, tenant.environmentId, newPaymentId(), ['created']);
    expect((await listEvents(em, tenant.environmentId, {}, 30)).data).toEqual([]);
    const later = await listEvents(em, tenant.environmentId, {}, 30, Date.now() + SETTLE_MS + 1_000);
    expect(later.data.map((e) => e.id)).toEqual([event!.id]);
  });
});
