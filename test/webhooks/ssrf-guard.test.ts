import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { WebhookEndpoint } from '../../server/db/entities';
import type { HostResolver } from '../../server/outbound/resolver';
import { webhookUrlPolicy } from '../../server/outbound/url-guard';
import { cli } from '../support/cli';
import { commitPaymentEvents, eventually, newPaymentId } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { createEnvironment, startWebhookService, type WebhookTestService } from '../support/webhook-service';

/** The DNS these tests see: names resolving to public, private and mixed answers, and one answer that changes. */
let rebindAnswer = ['93.184.216.34'];
const zone: Record<string, string[]> = {
  'public.example.com': ['93.184.216.34'],
  'v6.example.com': ['2606:4700:4700::1111'],
  'loopback.example.com': ['127.0.0.1'],
  'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
  'private.example.com': ['192.168.1.20'],
  'cgnat.example.com': ['100.64.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'ula.example.com': ['fd12:3456::1'],
  'linklocal6.example.com': ['fe80::1'],
  'loopback6.example.com': ['::1'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'unspecified.example.com': ['0.0.0.0'],
  'empty.example.com': [],
};
const resolveHost: HostResolver = async (host) => {
  if (host === 'rebind.example.com') return rebindAnswer;
  const answer = zone[host];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return answer;
};

/** Every address class the guard refuses; `port` points loopback forms at a listener that counts connections. */
const refused = (port: number): [string, RegExp][] => [
  [`http://public.example.com:${port}/hooks`, /https/],
  [`ftp://public.example.com/hooks`, /https/],
  ['not a url', /valid/],
  [`https://user:secret@public.example.com/hooks`, /credentials/],
  [`https://127.0.0.1:${port}/hooks`, /loopback/],
  [`https://127.1:${port}/`, /loopback/],
  [`https://2130706433:${port}/`, /loopback/],
  [`https://0x7f000001:${port}/`, /loopback/],
  [`https://017700000001:${port}/`, /loopback/],
  [`https://0x7f.0.0.1:${port}/`, /loopback/],
  [`https://127.255.255.254:${port}/`, /loopback/],
  [`https://0:${port}/`, /unspecified/],
  [`https://0.0.0.0:${port}/`, /unspecified/],
  ['https://10.0.0.1/', /private/],
  ['https://10.255.255.255/', /private/],
  ['https://172.16.0.1/', /private/],
  ['https://172.31.255.254/', /private/],
  ['https://192.168.0.1/', /private/],
  ['https://0xc0a80001/', /private/],
  ['https://100.64.0.1/', /carrierGradeNat/],
  ['https://100.127.255.254/', /carrierGradeNat/],
  ['https://169.254.169.254/latest/meta-data/', /linkLocal/],
  ['https://169.254.0.1/', /linkLocal/],
  ['https://224.0.0.1/', /multicast/],
  ['https://239.255.255.250/', /multicast/],
  ['https://255.255.255.255/', /broadcast/],
  ['https://240.0.0.1/', /reserved/],
  ['https://192.0.2.10/', /reserved/],
  ['https://198.18.0.1/', /reserved/],
  [`https://[::1]:${port}/`, /loopback/],
  ['https://[::]/', /unspecified/],
  ['https://[fd00::1]/', /uniqueLocal/],
  ['https://[fc00::1]/', /uniqueLocal/],
  ['https://[fe80::1]/', /linkLocal/],
  ['https://[ff02::1]/', /multicast/],
  [`https://[::ffff:127.0.0.1]:${port}/`, /IPv4-mapped/],
  ['https://[::ffff:a9fe:a9fe]/', /IPv4-mapped/],
  ['https://[::ffff:8.8.8.8]/', /IPv4-mapped/],
  [`https://[::127.0.0.1]:${port}/`, /global unicast/],
  ['https://[64:ff9b::a00:1]/', /rfc6052/],
  ['https://[2002:a00:1::1]/', /6to4/],
  ['https://[2001:db8::1]/', /reserved/],
  [`https://localhost:${port}/`, /internal name/],
  [`https://LOCALHOST.:${port}/`, /internal name/],
  [`https://api.localhost:${port}/`, /internal name/],
  ['https://printer.local/', /internal name/],
  ['https://metadata.google.internal/computeMetadata/v1/', /internal name/],
  ['https://db.corp/', /internal name/],
  ['https://router.lan/', /internal name/],
  ['https://backoffice/', /single-label/],
  ['https://metadata/', /single-label/],
  [`https://loopback.example.com:${port}/`, /resolves to 127\.0\.0\.1.*loopback/],
  ['https://mixed.example.com/', /resolves to 10\.0\.0\.7.*private/],
  ['https://private.example.com/', /private/],
  ['https://cgnat.example.com/', /carrierGradeNat/],
  ['https://metadata.example.com/', /169\.254\.169\.254.*linkLocal/],
  ['https://ula.example.com/', /uniqueLocal/],
  ['https://linklocal6.example.com/', /linkLocal/],
  [`https://loopback6.example.com:${port}/`, /loopback/],
  [`https://mapped.example.com:${port}/`, /loopback/],
  [`https://unspecified.example.com:${port}/`, /unspecified/],
  ['https://nxdomain.example.com/', /does not resolve/],
  ['https://empty.example.com/', /does not resolve/],
];

let service: WebhookTestService;
let environmentId: string;
let listener: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  // Anything that got past the guard towards this machine would land here.
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
  service = await startWebhookService({ resolveHost, env: { WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_LEASE_MS: '10000' } });
  ({ environmentId } = await createEnvironment(service));
});
afterAll(async () => {
  await service?.stop();
  await new Promise((resolve) => listener?.close(resolve));
});

describe('SSRF guard at registration', () => {
  it('refuses every non-public address class, spelling and name', async () => {
    const table = refused(port);
    expect(table.length).toBeGreaterThan(50);
    for (const [url, reason] of table) {
      const attempt = service.admin.webhooks.createEndpoint({ environmentId, url });
      await expect(attempt, url).rejects.toThrow(reason);
    }
    expect(await service.admin.webhooks.listEndpoints({ environmentId })).toEqual([]);
  });

  it('accepts public HTTPS URLs, by name or address', async () => {
    for (const url of ['https://public.example.com/hooks', 'https://v6.example.com/h', 'https://93.184.216.34/x', 'https://[2606:4700:4700::1111]:8443/', 'https://public.example.com./y']) {
      const endpoint = await service.admin.webhooks.createEndpoint({ environmentId: (await createEnvironment(service)).environmentId, url });
      expect(endpoint.url).toMatch(/^https:\/\//);
    }
  });

  it('refuses through the CLI with a readable reason, and on a URL change', async () => {
    const reply = await cli(service, ['webhook', 'endpoint', 'create', `https://127.0.0.1:${port}/`, '--env', environmentId]);
    expect(reply.code).not.toBe(0);
    expect(reply.stderr).toMatch(/refused: 127\.0\.0\.1 is not a public address \(loopback\)/);
    const other = await createEnvironment(service);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId: other.environmentId, url: 'https://public.example.com/hooks' });
    await expect(service.admin.webhooks.updateEndpoint({ endpointId: endpoint.id, url: 'https://metadata.example.com/' })).rejects.toThrow(/linkLocal/);
    expect((await service.admin.webhooks.listEndpoints({ environmentId: other.environmentId }))[0]!.url).toBe('https://public.example.com/hooks');
  });
});

describe('SSRF guard at delivery', () => {
  it('refuses every class again before sending, without opening a connection', async () => {
    // Endpoints stored with URLs the guard would refuse today (as after a policy change or a direct database edit).
    const { environmentId: envId } = await createEnvironment(service);
    const em = service.services.db.fork();
    const table = refused(port);
    for (const [url] of table) {
      em.create(WebhookEndpoint, { environment: envId, url, enabledEvents: [], secretSealed: service.services.secrets.seal('whsec_test') });
    }
    await em.flush();
    const before = connections;
    await commitPaymentEvents(service, envId, newPaymentId(), ['created']);

    const deliveries = await eventually(async () => {
      const list = (await service.admin.webhooks.listDeliveries({ environmentId: envId, limit: 500 })).items;
      return list.length === table.length && list.every((d) => d.status !== 'PENDING') ? list : undefined;
    });
    const endpoints = await service.admin.webhooks.listEndpoints({ environmentId: envId });
    const urlOf = new Map(endpoints.map((e) => [e.id, e.url]));
    for (const delivery of deliveries) {
      const url = urlOf.get(delivery.endpointId);
      expect({ url, status: delivery.status, lastResponseStatus: delivery.lastResponseStatus }).toEqual({ url, status: 'FAILED', lastResponseStatus: null });
      expect(delivery.lastError, url).toMatch(/^refused: /);
    }
    expect(connections - before).toBe(0);
  });

  it('checks the address actually connected to: a name that resolves publicly at registration and to 127.0.0.1 at delivery is refused', async () => {
    const { environmentId: envId } = await createEnvironment(service);
    rebindAnswer = ['93.184.216.34'];
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId: envId, url: `https://rebind.example.com:${port}/hooks` });
    rebindAnswer = ['127.0.0.1'];
    const before = connections;
    await commitPaymentEvents(service, envId, newPaymentId(), ['created']);
    const [delivery] = await eventually(async () => {
      const list = (await service.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
      return list[0] && list[0].status !== 'PENDING' ? list : undefined;
    });
    expect(delivery).toMatchObject({ status: 'FAILED', lastResponseStatus: null, lastError: expect.stringMatching(/refused: rebind\.example\.com resolves to 127\.0\.0\.1/) });
    expect(connections - before).toBe(0);
  });
});

describe('the local-development allowance', () => {
  let local: WebhookTestService;
  let receiver: Receiver;

  beforeAll(async () => {
    local = await startWebhookService({ resolveHost, env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await local?.stop();
  });

  it('is off by default outside the embedded demo, and refused at start-up in production', () => {
    // The embedded demo (no database configured) is a trial on one machine: its receivers are local.
    const allowed = (env: Record<string, string>) => webhookUrlPolicy(loadConfig(env), 'sandbox').allowLocal;
    expect(loadConfig({}).webhooks).toMatchObject({ allowLocalUrls: null, timeoutMs: 8000 });
    expect(allowed({})).toBe(true);
    expect(allowed({ SEED_DEMO: 'false' })).toBe(false);
    expect(allowed({ DATABASE_URL: 'postgres://127.0.0.1:5432/test' })).toBe(false);
    expect(allowed({ DATABASE_URL: 'postgres://127.0.0.1:5432/test', SEED_DEMO: 'true' })).toBe(false);
    expect(allowed({ DATABASE_URL: 'postgres://127.0.0.1:5432/test', WEBHOOK_ALLOW_LOCAL_URLS: 'true' })).toBe(true);
    expect(allowed({ NODE_ENV: 'test' })).toBe(true);
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://127.0.0.1:5432/test',
      ADMIN_TOKEN: 'a'.repeat(40),
      MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
      SMTP_URL: 'smtp://127.0.0.1:2525',
    };
    expect(allowed(production)).toBe(false);
    expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_LOCAL_URLS: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_LOCAL_URLS: 'true' })).toThrow(/WEBHOOK_ALLOW_LOCAL_URLS/);
  });

  it('lets a sandbox endpoint use http:// on this machine, but never a production environment endpoint', async () => {
    const sandbox = await createEnvironment(local, 'sandbox');
    const production = await createEnvironment(local, 'production');
    await local.admin.webhooks.createEndpoint({ environmentId: sandbox.environmentId, url: receiver.url() });
    for (const url of [receiver.url(), `https://127.0.0.1:${receiver.port}/`, 'https://localhost/', 'https://loopback.example.com/', 'https://10.0.0.1/']) {
      await expect(local.admin.webhooks.createEndpoint({ environmentId: production.environmentId, url }), url).rejects.toThrow(/refused/);
    }

    // At delivery too: a production endpoint stored with a local URL gets nothing.
    const em = local.services.db.fork();
    em.create(WebhookEndpoint, { environment: production.environmentId, url: `https://127.0.0.1:${port}/`, enabledEvents: [], secretSealed: local.services.secrets.seal('whsec_test') });
    await em.flush();
    const before = connections;
    await commitPaymentEvents(local, sandbox.environmentId, newPaymentId(), ['created']);
    await commitPaymentEvents(local, production.environmentId, newPaymentId(), ['created']);
    await receiver.waitFor(1);
    const [refusedDelivery] = await eventually(async () => {
      const list = (await local.admin.webhooks.listDeliveries({ environmentId: production.environmentId })).items;
      return list[0] && list[0].status !== 'PENDING' ? list : undefined;
    });
    expect(refusedDelivery).toMatchObject({ status: 'FAILED', lastError: expect.stringMatching(/^refused: 127\.0\.0\.1 .*loopback/) });
    expect(connections - before).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });
});
