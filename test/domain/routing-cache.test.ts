/**
 * The routing cache on its own (domain/routing/directory.ts), on the real database:
 * a directory of its own plays another node, whose cache the operator's
 * changes through this service do not invalidate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_TTL_MS, GatewayDirectory } from '../../server/domain/routing/directory';
import { Refusal } from '../../server/domain/refusal';
import { simulatorCredentials } from '../support/gateways';
import { startTestService, type TestService } from '../support/service';
import { createTenant } from '../support/tenant';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

/** An environment routing PIX to gateway_a, with gateway_a and gateway_b configured, and another node's directory on a clock the test moves. */
async function otherNode() {
  const { environmentId } = await createTenant(service);
  const credentials = simulatorCredentials();
  for (const gateway of ['gateway_a', 'gateway_b'] as const) {
    await service.admin.gateways.configure({ environmentId, gateway, baseUrl: 'http://127.0.0.1:9', credentials: credentials[gateway] });
  }
  await service.admin.routing.set({ environmentId, method: 'PIX', gateway: 'gateway_a' });
  let now = 1_000_000;
  const directory = new GatewayDirectory(service.services.secrets, service.services.gateways.health, {}, () => now);
  return {
    environmentId,
    directory,
    resolve: () => directory.resolve(service.services.db.fork(), environmentId, 'PIX'),
    later: (ms: number) => {
      now += ms;
    },
  };
}

describe('routing cache', () => {
  it('serves a rule changed on another node until its time is up, then the new one', async () => {
    const node = await otherNode();
    expect((await node.resolve()).gateway).toBe('gateway_a');
    await service.admin.routing.set({ environmentId: node.environmentId, method: 'PIX', gateway: 'gateway_b' });
    node.later(CACHE_TTL_MS - 100);
    expect((await node.resolve()).gateway).toBe('gateway_a');
    node.later(200);
    expect((await node.resolve()).gateway).toBe('gateway_b');
    await node.directory.close();
  });

  it('sees a change at once when invalidated (as the node that made it is)', async () => {
    const node = await otherNode();
    expect((await node.resolve()).gateway).toBe('gateway_a');
    await service.admin.routing.set({ environmentId: node.environmentId, method: 'PIX', gateway: 'gateway_b' });
    node.directory.invalidate(node.environmentId);
    expect((await node.resolve()).gateway).toBe('gateway_b');
    await node.directory.close();
  });

  it('keeps one adapter per account until its credentials change', async () => {
    const node = await otherNode();
    const first = (await node.resolve()).adapter;
    expect((await node.resolve()).adapter).toBe(first);
    await service.admin.gateways.configure({ environmentId: node.environmentId, gateway: 'gateway_a', baseUrl: 'http://127.0.0.1:9', credentials: simulatorCredentials().gateway_a });
    node.directory.invalidate(node.environmentId);
    expect((await node.resolve()).adapter).not.toBe(first);
    await node.directory.close();
  });

  it('refuses new resources on a disabled gateway but still serves the ones it holds', async () => {
    const node = await otherNode();
    await service.admin.gateways.setEnabled({ environmentId: node.environmentId, gateway: 'gateway_a', enabled: false });
    node.directory.invalidate(node.environmentId);
    const refusal = await node.resolve().then(() => null, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(Refusal);
    expect((refusal as Refusal).code).toBe('provider_disabled');
    const existing = await node.directory.forExisting(service.services.db.fork(), node.environmentId, 'gateway_a');
    expect(existing.gateway).toBe('gateway_a');
    await node.directory.close();
  });
});
