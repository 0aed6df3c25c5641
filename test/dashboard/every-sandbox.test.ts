/**
 * Every sandbox works where the simulators run (the embedded demo and
 * development): a sandbox environment made by an operator or an owner is
 * wired at its creation to simulators of its own, so its first test Pix is
 * paid by its simulator and the notification reaches that environment, not
 * the demo's. Production environments are never wired; an account a person
 * configured with credentials of their own is left alone, also when the
 * service starts again. The service here is the one `npm start` runs: the
 * demo seeded and its simulators started by server/sandbox/demo.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo } from '../../server/sandbox/demo';
import type { DemoTenant } from '../../server/sandbox/demo-seed';
import { validPayment } from '../support/http';
import { startTestService, type TestService } from '../support/service';

let service: TestService;
let demo: DemoTenant;

beforeAll(async () => {
  service = await startTestService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' } });
  demo = (await startDemo(service.services))!;
}, 60_000);

afterAll(async () => {
  await service?.stop();
});

const byGateway = (accounts: { gateway: string; baseUrl: string; enabled: boolean }[]) => accounts.map((a) => ({ gateway: a.gateway, enabled: a.enabled, host: new URL(a.baseUrl).hostname }));
const rules = async (environmentId: string) => (await service.admin.routing.list({ environmentId })).map((rule) => ({ method: rule.method, gateway: rule.gateway }));

async function onboard(name: string) {
  const organization = await service.admin.organizations.create({ name });
  const project = await service.admin.projects.create({ organizationId: organization.id, name: `${name} shop`, withEnvironments: true });
  const environments = (project as unknown as { environments: { id: string; kind: string }[] }).environments;
  return {
    organizationId: organization.id,
    projectId: project.id,
    sandbox: environments.find((e) => e.kind === 'sandbox')!.id,
    production: environments.find((e) => e.kind === 'production')!.id,
  };
}

/** A test Pix made as the dashboard makes it, then paid by the simulator: the answer is the payment as stored once the webhook was applied. */
async function payATestPix(environmentId: string) {
  const created = await service.admin.sandbox.createPayment({ environmentId, payment: { ...validPayment(), currency: 'BRL' } as never });
  expect(created.status).toBe('pending');
  const paid = await service.admin.simulators.payment({ paymentId: created.id, outcome: 'pay' });
  return { created, paid };
}

describe('every sandbox works where the simulators run', () => {
  it('a project onboarded by an operator gets a sandbox wired to simulators of its own: three accounts, routing, a test Pix paid', async () => {
    const merchant = await onboard('Padaria Central');
    expect(byGateway(await service.admin.gateways.list({ environmentId: merchant.sandbox }))).toEqual([
      { gateway: 'gateway_a', enabled: true, host: '127.0.0.1' },
      { gateway: 'gateway_b', enabled: true, host: '127.0.0.1' },
      { gateway: 'gateway_c', enabled: true, host: '127.0.0.1' },
    ]);
    expect(await rules(merchant.sandbox)).toEqual([
      { method: 'CARD', gateway: 'gateway_a' },
      { method: 'PIX', gateway: 'gateway_a' },
      { method: 'SUBSCRIPTION', gateway: 'gateway_c' },
    ]);
    // Simulators of its own: none of its accounts is reached where the demo's are.
    const demoUrls = (await service.admin.gateways.list({ environmentId: demo.environmentId })).map((a) => a.baseUrl);
    for (const account of await service.admin.gateways.list({ environmentId: merchant.sandbox })) expect(demoUrls).not.toContain(account.baseUrl);
    expect(await service.admin.sandbox.readiness({ environmentId: merchant.sandbox })).toEqual({
      environmentId: merchant.sandbox,
      kind: 'sandbox',
      simulators: ['gateway_a', 'gateway_b', 'gateway_c'],
      methods: { PIX: true, CARD: true, SUBSCRIPTION: true },
    });

    // Production is never wired: nothing there pretends to take a payment.
    expect(await service.admin.gateways.list({ environmentId: merchant.production })).toEqual([]);
    expect(await rules(merchant.production)).toEqual([]);
    expect(await service.admin.sandbox.readiness({ environmentId: merchant.production })).toEqual({
      environmentId: merchant.production,
      kind: 'production',
      simulators: [],
      methods: { PIX: false, CARD: false, SUBSCRIPTION: false },
    });

    const { created, paid } = await payATestPix(merchant.sandbox);
    expect(created.gateway).toBe('gateway_a');
    expect(paid.status).toBe('paid');
    const detail = await service.admin.payments.get({ paymentId: created.id });
    expect(detail.events.map((event) => event.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);

    // The demo keeps its own simulators and routing (Pix to gateway_b): its payments are paid too.
    const demoPix = await payATestPix(demo.environmentId);
    expect(demoPix.created.gateway).toBe('gateway_b');
    expect(demoPix.paid.status).toBe('paid');
  });

  it('an environment an owner adds on its own is wired if it is a sandbox; two sandboxes never share notifications', async () => {
    const organization = await service.admin.organizations.create({ name: 'Loja Dois' });
    const project = await service.admin.projects.create({ organizationId: organization.id, name: 'Loja' });
    const sandbox = await service.admin.environments.create({ projectId: project.id, kind: 'sandbox' });
    const production = await service.admin.environments.create({ projectId: project.id, kind: 'production' });
    expect((await service.admin.gateways.list({ environmentId: sandbox.id })).length).toBe(3);
    expect(await service.admin.gateways.list({ environmentId: production.id })).toEqual([]);

    const other = await onboard('Outra Loja');
    const [first, second] = await Promise.all([payATestPix(sandbox.id), payATestPix(other.sandbox)]);
    expect([first.paid.status, second.paid.status]).toEqual(['paid', 'paid']);
    // Each payment's events stayed in its own environment.
    const firstEvents = await service.admin.payments.get({ paymentId: first.created.id });
    expect(firstEvents.payment.environmentId).toBe(sandbox.id);
    expect(firstEvents.events.at(-1)?.type).toBe('payment.paid');
  });

  it('on the next start the accounts are pointed at the new simulators; an account configured with real credentials is left alone', async () => {
    const merchant = await onboard('Mercado Novo');
    // The merchant's own gateway_b account (their real sandbox credentials), not a simulator's.
    await service.admin.gateways.configure({ environmentId: merchant.sandbox, gateway: 'gateway_b', baseUrl: 'http://127.0.0.1:9/', credentials: { apiKey: 'their_own_key', webhookToken: 'their_own_webhook_token' } });
    const before = await service.admin.gateways.list({ environmentId: merchant.sandbox });

    // A restart of the sandbox wing: the simulators (and their ports) are gone, a new set starts.
    await service.services.sandbox!.close();
    service.services.sandbox = null;
    await startDemo(service.services);

    const after = await service.admin.gateways.list({ environmentId: merchant.sandbox });
    const urlOf = (accounts: typeof after, gateway: string) => accounts.find((a) => a.gateway === gateway)!.baseUrl;
    expect(urlOf(after, 'gateway_a')).not.toBe(urlOf(before, 'gateway_a'));
    expect(urlOf(after, 'gateway_b')).toBe('http://127.0.0.1:9/');
    expect(after.find((a) => a.gateway === 'gateway_b')!.credentialFields).toEqual(['apiKey', 'webhookToken']);
    expect((await service.admin.sandbox.readiness({ environmentId: merchant.sandbox })).simulators).toEqual(['gateway_a', 'gateway_c']);

    const { paid } = await payATestPix(merchant.sandbox);
    expect(paid.status).toBe('paid');
    // Routing of an environment wired before is not brought back or changed by a start.
    expect(await rules(merchant.sandbox)).toEqual([
      { method: 'CARD', gateway: 'gateway_a' },
      { method: 'PIX', gateway: 'gateway_a' },
      { method: 'SUBSCRIPTION', gateway: 'gateway_c' },
    ]);
  });

  it('the first-run checklist ticks each step from what exists: a key, an endpoint, a test payment, production routed', async () => {
    const merchant = await onboard('Checklist Ltda');
    const checklist = () => service.admin.onboarding.checklist({ environmentId: merchant.production });
    expect(await checklist()).toMatchObject({
      sandboxEnvironmentId: merchant.sandbox,
      productionEnvironmentId: merchant.production,
      steps: { apiKey: false, endpoint: false, testPayment: false, goLive: false },
    });
    const key = await service.admin.apiKeys.create({ environmentId: merchant.sandbox, name: 'checkout' });
    await service.admin.webhooks.createEndpoint({ environmentId: merchant.sandbox, url: 'http://127.0.0.1:9/webhooks' });
    await payATestPix(merchant.sandbox);
    expect((await checklist()).steps).toEqual({ apiKey: true, endpoint: true, testPayment: true, goLive: false });
    // A revoked key is no key.
    await service.admin.apiKeys.revoke({ apiKeyId: key.id });
    expect((await checklist()).steps.apiKey).toBe(false);

    // Live: a production key and a method routed to an enabled gateway account.
    await service.admin.apiKeys.create({ environmentId: merchant.production, name: 'live' });
    expect((await checklist()).steps.goLive).toBe(false);
    await service.admin.gateways.configure({ environmentId: merchant.production, gateway: 'gateway_a', baseUrl: 'http://127.0.0.1:9/', credentials: { secretKey: 'sk_live_their_own_key', webhookSecret: 'whsec_their_own_secret' } });
    await service.admin.routing.set({ environmentId: merchant.production, method: 'PIX', gateway: 'gateway_a' } as never);
    expect((await checklist()).steps.goLive).toBe(true);
    await service.admin.gateways.setEnabled({ environmentId: merchant.production, gateway: 'gateway_a', enabled: false });
    expect((await checklist()).steps.goLive).toBe(false);
  });
});
