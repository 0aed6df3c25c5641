/**
 * Gateway base URLs pass the outbound address guard in production, at
 * configuration and at connect time: a gateway call carries the account's
 * credentials and the customer's name, e-mail and document, so it must never
 * reach an internal address. And only a platform operator chooses where a
 * gateway is reached in production: merchants choose credentials, not hosts.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostResolver } from '../../server/outbound/resolver';
import { member } from '../support/dashboard-sessions';
import { simulatorCredentials } from '../support/gateways';
import { call, validPayment } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let rebindAnswer = ['93.184.216.34'];
const resolveHost: HostResolver = async (host) => {
  if (host === 'rebind.example.com') return rebindAnswer;
  if (host === 'gateway.example.com' || host === 'elsewhere.example.com') return ['93.184.216.34'];
  if (host === 'internal.example.com') return ['10.0.0.5'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

let service: TestService;
let tenant: TestTenant;
let listener: Server;
let port: number;
let connections = 0;
const credentials = simulatorCredentials().gateway_a;

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
  service = await startTestService({
    // The database URL only satisfies production's start-up check: the test's own database is used.
    env: { NODE_ENV: 'production', MASTER_KEY: randomBytes(32).toString('base64'), DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused', SMTP_URL: 'smtp://127.0.0.1:1' },
    resolveHost,
  });
  tenant = await createTenant(service, 'production');
});
afterAll(async () => {
  await service?.stop();
  listener?.close();
});

const internal = () => [
  'http://169.254.169.254/',
  `http://127.0.0.1:${port}`,
  `http://[::1]:${port}`,
  'http://10.0.0.1',
  `https://127.0.0.1:${port}`,
  `https://[::1]:${port}/`,
  `https://localhost:${port}`,
  'https://169.254.169.254/latest/meta-data/',
  'https://10.0.0.1/',
  'https://internal.example.com/',
  `https://[::ffff:127.0.0.1]:${port}/`,
];

describe('in production', () => {
  it('refuses every internal base URL to the operator, with a clear error', async () => {
    for (const baseUrl of internal()) {
      await expect(service.admin.gateways.configure({ environmentId: tenant.environmentId, gateway: 'gateway_a', baseUrl, credentials }), baseUrl).rejects.toThrow(
        /baseUrl refused: .*(https|public|internal|IPv4-mapped)/,
      );
    }
    expect(await service.admin.gateways.list({ environmentId: tenant.environmentId })).toEqual([]);
    expect(connections).toBe(0);
  });

  it('refuses them to a developer too (400), and a developer never chooses the host', async () => {
    const developer = await member(service, tenant.organizationId, 'developer');
    for (const baseUrl of internal()) {
      const reply = await developer.call('gateways.configure', { environmentId: tenant.environmentId, gateway: 'gateway_a', baseUrl, credentials });
      expect(reply.status, baseUrl).toBe(400);
      expect(reply.body).toMatchObject({ error: 'invalid_input', message: expect.stringMatching(/^baseUrl refused: /) });
    }
    // A public base URL is still the operator's to choose.
    const chosen = await developer.call('gateways.configure', { environmentId: tenant.environmentId, gateway: 'gateway_b', baseUrl: 'https://gateway.example.com/', credentials: simulatorCredentials().gateway_b });
    expect(chosen.status).toBe(403);
    expect(chosen.body).toEqual({ error: 'forbidden', message: expect.stringMatching(/Only a platform operator sets where gateway_b is reached in production/) });

    // Once the operator has set it, the developer rotates credentials and keeps the host.
    await service.admin.gateways.configure({ environmentId: tenant.environmentId, gateway: 'gateway_b', baseUrl: 'https://gateway.example.com/', credentials: simulatorCredentials().gateway_b });
    const rotated = await developer.call('gateways.configure', { environmentId: tenant.environmentId, gateway: 'gateway_b', baseUrl: 'https://gateway.example.com/', credentials: simulatorCredentials().gateway_b });
    expect(rotated.status).toBe(200);
    const moved = await developer.call('gateways.configure', { environmentId: tenant.environmentId, gateway: 'gateway_b', baseUrl: 'https://elsewhere.example.com/', credentials: simulatorCredentials().gateway_b });
    expect(moved.status).toBe(403);
    expect(connections).toBe(0);
  });

  it('checks the address connected to: a name that resolved publicly, then to loopback, gets no call', async () => {
    rebindAnswer = ['93.184.216.34'];
    await service.admin.gateways.configure({ environmentId: tenant.environmentId, gateway: 'gateway_a', baseUrl: `https://rebind.example.com:${port}/`, credentials });
    await service.admin.routing.set({ environmentId: tenant.environmentId, method: 'PIX', gateway: 'gateway_a' });
    rebindAnswer = ['127.0.0.1'];
    const reply = await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment() });
    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({ error: 'gateway_error', provider: 'gateway_a' });
    expect(connections).toBe(0);
  });
});

describe('outside production', () => {
  it('reaches the local simulators: the sandbox keeps working on this machine', async () => {
    const local = await startTestService();
    try {
      const other = await createTenant(local);
      const account = await local.admin.gateways.configure({ environmentId: other.environmentId, gateway: 'gateway_a', baseUrl: `http://127.0.0.1:${port}`, credentials });
      expect(account.baseUrl).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await local.stop();
    }
  });
});
