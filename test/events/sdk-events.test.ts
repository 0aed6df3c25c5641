/** The SDK's events.list and events.iterate against a real service: pages are walked in order, each event once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInvalidInputError, PaymentsClient, type Event } from '../../sdk/src/index';
import { commitPaymentEvents, newPaymentId } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
let client: PaymentsClient;
let committed: { id: string; type: string }[];

beforeAll(async () => {
  world = await startSandboxedService();
  client = new PaymentsClient({ apiKey: world.tenant.apiKey, baseUrl: world.service.url, retryBaseDelayMs: 10 });
  committed = [];
  for (let n = 0; n < 7; n++) {
    const events = await commitPaymentEvents(world.service, world.tenant.environmentId, newPaymentId(), ['created', 'pending', 'paid']);
    committed.push(...events.map((e) => ({ id: e.id, type: e.type })));
  }
}, 60_000);
afterAll(async () => {
  await world?.stop();
});

async function collect(iterator: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of iterator) out.push(event);
  return out;
}

describe('client.events', () => {
  it('iterate walks every page in order, each event once, and stops when caught up', async () => {
    const all = await collect(client.events.iterate({ pageSize: 4 }));
    expect(all.map((e) => e.id)).toEqual(committed.map((e) => e.id));
    expect(all[0]).toMatchObject({ type: 'payment.created', data: { status: 'created' } });
    expect(Object.keys(all[0]!)).toEqual(['id', 'type', 'createdAt', 'data']);

    // A receiver that stopped after the 10th event resumes from it.
    const resumed = await collect(client.events.iterate({ after: committed[9]!.id, pageSize: 5 }));
    expect(resumed.map((e) => e.id)).toEqual(committed.slice(10).map((e) => e.id));
    expect(await collect(client.events.iterate({ after: committed.at(-1)!.id }))).toEqual([]);

    const paid = await collect(client.events.iterate({ type: 'payment.paid', pageSize: 2 }));
    expect(paid.map((e) => e.id)).toEqual(committed.filter((e) => e.type === 'payment.paid').map((e) => e.id));
  });

  it('list answers one page with its cursor', async () => {
    const page = await client.events.list({ limit: 3 });
    expect(page.data.map((e) => e.id)).toEqual(committed.slice(0, 3).map((e) => e.id));
    expect(page.hasMore).toBe(true);
    expect(page.nextCursor).toBe(committed[2]!.id);
    expect(page.lastResponse.status).toBe(200);
    const next = await client.events.list({ after: page.nextCursor!, limit: 100 });
    expect(next.data.map((e) => e.id)).toEqual(committed.slice(3).map((e) => e.id));
    expect(next.hasMore).toBe(false);
  });

  it('refuses a bad limit before sending, and surfaces an unknown cursor as invalid_input at after', async () => {
    await expect(client.events.list({ limit: 0 })).rejects.toThrow(TypeError);
    await expect(client.events.list({ limit: 101 })).rejects.toThrow(TypeError);
    const error = await client.events.list({ after: `evt_${'0'.repeat(24)}` }).catch((e: unknown) => e);
    expect(isInvalidInputError(error)).toBe(true);
    if (isInvalidInputError(error)) expect(error.issues.map((issue) => issue.path)).toEqual([['after']]);
  });
});
