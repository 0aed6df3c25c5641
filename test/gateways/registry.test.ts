import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { GATEWAY_NAMES } from '../../server/contract/enums';
import { GatewayHttpClient } from '../../server/gateways/http-client';
import { createGatewayAdapter, gatewayAdapters, gatewayCapabilities, GatewayConfigError } from '../../server/gateways/index';
import { CREDENTIALS, expectApiError } from '../support/gateway-harness';

describe('registry', () => {
  it.each(GATEWAY_NAMES)('builds %s from a name and its config', async (name) => {
    const adapter = createGatewayAdapter(name, { baseUrl: 'http://127.0.0.1:1', credentials: CREDENTIALS[name] });
    expect(adapter.name).toBe(name);
    expect(adapter.capabilities).toBe(gatewayCapabilities[name]);
    await adapter.close();
  });

  it('states the gateway facts the contract fixes', () => {
    expect(gatewayCapabilities.gateway_a).toMatchObject({ maxInstallments: 12, subscriptionCancelAtPeriodEnd: false, paymentCancel: true });
    expect(gatewayCapabilities.gateway_b).toMatchObject({ maxInstallments: 24, subscriptionCancelAtPeriodEnd: true, paymentCancel: false });
    expect(gatewayCapabilities.gateway_c).toMatchObject({
      maxInstallments: 24,
      subscriptionCancelAtPeriodEnd: false,
      phoneRequiredForCard: true,
      phoneRequiredForSubscription: true,
      planIdRequired: true,
    });
    expect(gatewayCapabilities.gateway_c.methods).not.toContain('pix');
    expect(gatewayCapabilities.gateway_a.methods).toContain('pix');
    expect(gatewayCapabilities.gateway_b.methods).toContain('pix');
  });

  it('refuses credentials of the wrong shape, naming fields but never values', () => {
    const secret = 'whsec_this_must_not_leak';
    let thrown: unknown;
    try {
      gatewayAdapters.gateway_a({ baseUrl: 'http://127.0.0.1:1', credentials: { secretKey: 42, webhookSecret: secret, extra: secret } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayConfigError);
    expect((thrown as Error).message).toContain('secretKey');
    expect((thrown as Error).message).not.toContain(secret);
    expect(() => gatewayAdapters.gateway_c({ baseUrl: 'http://127.0.0.1:1', credentials: CREDENTIALS.gateway_a })).toThrow(GatewayConfigError);
  });
});

describe('http client', () => {
  it('keeps a base URL path prefix and sends JSON', async () => {
    const seen: { url?: string; type?: string } = {};
    const server = createServer((req, res) => {
      seen.url = req.url;
      seen.type = req.headers['content-type'];
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new GatewayHttpClient('gateway_a', `http://127.0.0.1:${port}/sandbox`, { timeouts: { totalMs: 1_000 } }, {});
    await expect(client.send({ method: 'POST', path: '/v1/payments', body: { a: 1 } })).resolves.toEqual({ status: 200, body: { ok: true } });
    expect(seen).toEqual({ url: '/sandbox/v1/payments', type: 'application/json' });
    await client.close();
    server.close();
  });

  it('maps a refused connection to gateway_error with the provider', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new GatewayHttpClient('gateway_b', `http://127.0.0.1:${port}`, { timeouts: { connectMs: 300, totalMs: 300 } }, {});
    await expectApiError(client.send({ method: 'GET', path: '/x' }), 'gateway_error', { provider: 'gateway_b' });
    await client.close();
  });
});
