/**
 * A merchant onboarded from the operator page takes a test Pix to paid and
 * sees payment.paid delivered, without the CLI, in a real browser, on the
 * service `npm start` runs (the demo seeded, the simulators started by
 * server/sandbox/demo.ts): the operator creates the organization, its
 * project and invites its owner; the owner joins through the link, follows
 * the first-run checklist, adds an endpoint (a real HTTP receiver on an
 * ephemeral port), makes a test Pix, pays it with the simulator and sees
 * payment.paid in the timeline, on its event's page and at the receiver.
 * Then, as that owner: a card payment canceled (a Pix cannot be), a
 * subscription canceled at the end of its period, and a gateway switch that
 * asks first, in production by the project's name.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemo } from '../../server/sandbox/demo';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, PASSWORD, startReceiver, uniqueEmail, watchPage } from '../support/browser';
import { call } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startTestService, type TestService } from '../support/service';
import { invitationAfterInvite, startPeopleMail, type PeopleMail } from '../support/people-mail';

let service: TestService;
let mail: PeopleMail;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let operatorPage: Page;
let owner: { context: BrowserContext; page: Page; problems: string[] } | null = null;
let merchant: { organizationId: string; sandbox: string; production: string };

const shot = (page: Page, name: string) => page.screenshot({ path: `/tmp/e2e-sandbox-${name}.png`, fullPage: true });

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  mail = await startPeopleMail();
  service = await startTestService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100', ...mail.env } });
  await startDemo(service.services);
  receiver = await startReceiver();
  const operator = uniqueEmail('operator');
  await service.admin.users.create({ email: operator, password: PASSWORD, platformOperator: true });
  browser = await launchChromium();
  operatorPage = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  operatorPage.setDefaultTimeout(15_000);
  await logIn(operatorPage, service.url, operator);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await service?.stop();
  await mail?.close();
});

afterEach(async (context) => {
  const page = owner?.page ?? operatorPage;
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

const paymentIdOf = (page: Page) => /\/payments\/(pay_\w+)$/.exec(page.url())![1]!;

async function newTestPayment(page: Page, method: 'Pix' | 'Card') {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payments', exact: true }).click();
  await page.getByRole('button', { name: 'New test payment' }).click();
  const dialog = page.getByRole('dialog');
  if (method === 'Card') await dialog.getByText('Card', { exact: true }).click();
  await dialog.getByRole('button', { name: 'Create test payment' }).click();
  await page.getByText('Gateway reference', { exact: true }).waitFor();
  return paymentIdOf(page);
}

describe.skipIf(!chromiumAvailable)('a merchant onboarded from the operator page', () => {
  it('makes a test Pix, pays it with the simulator and sees payment.paid delivered, without the CLI', async () => {
    // The operator onboards the merchant.
    const page = operatorPage;
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Organizations (operator)', exact: true }).click();
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Padaria Central');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByRole('cell', { name: 'Padaria Central', exact: true }).waitFor();
    await page.getByRole('button', { name: 'New project of Padaria Central' }).click();
    await page.getByRole('dialog').getByLabel('Project name').fill('Loja online');
    await page.getByRole('dialog').getByRole('button', { name: 'Create project' }).click();
    await page.getByText('Loja online created, with its sandbox and production environments.').waitFor();
    const email = uniqueEmail('owner');
    await page.getByRole('button', { name: 'Invite an owner of Padaria Central' }).click();
    await page.getByRole('dialog').getByLabel('E-mail').fill(email);
    await page.getByRole('dialog').getByRole('button', { name: 'Invite owner' }).click();
    // The embedded demo shows the link to whoever invited; elsewhere only the invited address receives it.
    const link = await invitationAfterInvite(page, mail, service, email);

    const organization = (await service.admin.organizations.list()).find((o) => o.name === 'Padaria Central')!;
    const project = (await service.admin.projects.list({ organizationId: organization.id }))[0]!;
    const environments = await service.admin.environments.list({ projectId: project.id });
    merchant = {
      organizationId: organization.id,
      sandbox: environments.find((e) => e.kind === 'sandbox')!.id,
      production: environments.find((e) => e.kind === 'production')!.id,
    };

    // The owner joins in a browser of their own.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const ownerPage = await context.newPage();
    ownerPage.setDefaultTimeout(15_000);
    owner = { context, page: ownerPage, problems: watchPage(ownerPage, service.url) };
    await ownerPage.goto(link);
    await ownerPage.getByRole('textbox', { name: /^Password/ }).fill(PASSWORD);
    await ownerPage.getByRole('textbox', { name: /^Repeat the password/ }).fill(PASSWORD);
    await ownerPage.getByRole('button', { name: 'Join' }).click();
    await ownerPage.getByRole('heading', { name: 'Home' }).waitFor();
    expect(ownerPage.url()).toContain(`/e/${merchant.sandbox}`);

    // A first-run checklist, nothing done yet; the banner promises what works here.
    const checklist = ownerPage.getByTestId('first-run-checklist');
    await checklist.getByText('Get started').waitFor();
    for (const step of ['Create an API key', 'Add a webhook endpoint', 'Make a test payment', 'Go live']) await checklist.getByLabel(`${step}: to do`).waitFor();
    await ownerPage.getByTestId('sandbox-banner').getByText('Simulator actions are available').waitFor();
    await shot(ownerPage, 'home-checklist');

    // The endpoint: the checklist links where to add it.
    await checklist.getByRole('link', { name: 'Add a webhook endpoint' }).click();
    await ownerPage.getByRole('button', { name: 'Add endpoint' }).click();
    await ownerPage.getByLabel('URL').fill(receiver.url);
    await ownerPage.getByRole('dialog').getByRole('button', { name: 'Add endpoint' }).click();
    await ownerPage.getByRole('button', { name: 'I have copied it' }).click();

    // The test Pix, paid with the simulator.
    const pixId = await newTestPayment(ownerPage, 'Pix');
    await ownerPage.getByRole('heading', { name: 'Pix to pay' }).waitFor();
    const qr = ownerPage.getByRole('img', { name: 'Pix QR code' });
    await qr.waitFor();
    expect(await qr.evaluate((image) => (image as unknown as { complete: boolean; naturalWidth: number }).complete && (image as unknown as { naturalWidth: number }).naturalWidth > 0)).toBe(true);
    await ownerPage.getByRole('button', { name: 'Copy Pix code' }).waitFor();
    // A Pix cannot be canceled: the button is off, and the page says why.
    expect(await ownerPage.getByRole('button', { name: 'Cancel payment' }).isDisabled()).toBe(true);
    await ownerPage.getByText('Cancel: Pix payments cannot be canceled; they expire by themselves.').waitFor();
    await shot(ownerPage, 'pix-pending');
    await ownerPage.getByRole('button', { name: 'Pay', exact: true }).click();
    await ownerPage.getByText('Simulated: pay.').waitFor();
    await ownerPage.getByRole('link', { name: /^Event payment\.paid/ }).waitFor();
    const paid = await eventually(async () => receiver.received.find((r) => r.body.includes('"payment.paid"') && r.body.includes(pixId)), 15_000, 'payment.paid at the receiver');
    expect(JSON.parse(paid.body)).toMatchObject({ type: 'payment.paid', data: { paymentId: pixId, status: 'paid' } });
    // The delivery is shown SENT in the timeline.
    await ownerPage.getByRole('button', { name: new RegExp(`^Delivery \\w+ to ${receiver.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }).last().waitFor();
    await ownerPage.getByText('SENT').last().waitFor();
    await shot(ownerPage, 'pix-paid');

    // The event has its own page, with its delivery linked to the delivery's own address, which links back.
    await ownerPage.getByRole('link', { name: /^Event payment\.paid/ }).click();
    await ownerPage.getByRole('heading', { name: 'Event payment.paid' }).waitFor();
    const eventUrl = ownerPage.url();
    expect(eventUrl).toMatch(new RegExp(`/e/${merchant.sandbox}/events/evt_\\w+$`));
    await ownerPage.getByLabel('Envelope').getByText('"type": "payment.paid"').waitFor();
    await ownerPage.getByRole('link', { name: pixId }).waitFor();
    await shot(ownerPage, 'event-page');
    await ownerPage.getByRole('table', { name: 'Deliveries of this event' }).getByRole('link').first().click();
    await ownerPage.waitForURL(new RegExp(`/e/${merchant.sandbox}/deliveries/\\w+$`));
    const drawer = ownerPage.getByRole('dialog');
    await drawer.getByText('Request (every attempt sends these exact bytes)').waitFor();
    await drawer.getByText('HTTP 200').first().waitFor();
    // Opened by its URL alone (a shared link), the delivery is there again.
    const deliveryUrl = ownerPage.url();
    await ownerPage.goto(deliveryUrl);
    await ownerPage.getByRole('dialog').getByText('Request (every attempt sends these exact bytes)').waitFor();
    await shot(ownerPage, 'delivery-url');
    await ownerPage.getByRole('dialog').getByRole('link', { name: /^Event evt_/ }).click();
    await ownerPage.waitForURL(eventUrl);

    // Home again: the checklist ticked the endpoint and the test payment from what exists.
    await ownerPage.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Home', exact: true }).click();
    await checklist.getByLabel('Add a webhook endpoint: done').waitFor();
    await checklist.getByLabel('Make a test payment: done').waitFor();
    await checklist.getByLabel('Create an API key: to do').waitFor();
    expect(owner.problems).toEqual([]);
  }, 180_000);

  it('cancels a card payment after confirming where it lands', async () => {
    const page = owner!.page;
    const cardId = await newTestPayment(page, 'Card');
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    const confirm = page.getByRole('dialog', { name: `Cancel payment ${cardId}?` });
    await confirm.getByText('Sandbox: Padaria Central / Loja online').waitFor();
    await confirm.getByText('The customer can no longer pay it').waitFor();
    await shot(page, 'cancel-card-confirm');
    await confirm.getByRole('button', { name: 'Cancel payment' }).click();
    await page.getByText(`Payment ${cardId} canceled.`).waitFor();
    await page.getByRole('link', { name: /^Event payment\.canceled/ }).waitFor();
    expect((await service.admin.payments.get({ paymentId: cardId })).payment.status).toBe('canceled');
    await page.getByText('Cancel: The resource is already in a final state.').waitFor();
    await shot(page, 'card-canceled');
  }, 60_000);

  it('cancels a subscription at the end of its period', async () => {
    const page = owner!.page;
    // Subscriptions go to gateway_b here, which ends them at the period's end; one is created with an API key, as a shop would.
    await service.admin.routing.set({ environmentId: merchant.sandbox, method: 'SUBSCRIPTION', gateway: 'gateway_b' } as never);
    const key = await service.admin.apiKeys.create({ environmentId: merchant.sandbox, name: 'shop' });
    const created = await call(service.url, 'POST', '/v1/subscriptions', {
      key: key.secret,
      body: { amount: 4990, interval: 'monthly', externalId: 'plano-mensal', metadata: { plan: 'mensal', note: 'bidi-\u202Egnp.exe' }, customer: { name: 'Maria Silva', email: 'maria@example.com', document: '12345678909' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await page.goto(`${service.url}/dashboard/e/${merchant.sandbox}/subscriptions/${id}`);
    // Who pays, and what they wrote, shown so that no character can disguise it.
    await page.getByText('maria@example.com').waitFor();
    await page.getByLabel('Metadata').getByText('bidi-\\u202Egnp.exe', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Cancel at period end' }).click();
    const confirm = page.getByRole('dialog', { name: `Cancel ${id} at the end of its period?` });
    await confirm.getByText('Sandbox: Padaria Central / Loja online').waitFor();
    await confirm.getByRole('button', { name: 'Cancel at period end' }).click();
    await page.getByText(`Subscription ${id} ends at the end of its period.`).waitFor();
    await eventually(async () => (await service.admin.subscriptions.get({ subscriptionId: id })).subscription.cancelAtPeriodEnd || undefined, 10_000, 'cancelAtPeriodEnd');
    await page.getByText('Cancel at period end: It already ends at the end of its period.').waitFor();
    expect((await service.admin.subscriptions.get({ subscriptionId: id })).subscription.status).toBe('active');
    await shot(page, 'subscription-period-end');
  }, 60_000);

  it('asks before disabling a gateway, and in production asks for the project name', async () => {
    const page = owner!.page;
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Gateways & routing', exact: true }).click();
    await page.getByRole('switch', { name: 'gateway_a enabled' }).dispatchEvent('click');
    const confirm = page.getByRole('dialog', { name: 'Disable gateway_a?' });
    await confirm.getByText(/New Pix and card payments will fail: no other enabled gateway is in their routing rule/).waitFor();
    await shot(page, 'gateway-disable-confirm');
    await confirm.getByRole('button', { name: 'Keep it enabled' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect((await service.admin.gateways.list({ environmentId: merchant.sandbox })).find((a) => a.gateway === 'gateway_a')!.enabled).toBe(true);

    // Production: the merchant's live gateway_a, routed; turning it off needs the project's name typed.
    await service.admin.gateways.configure({ environmentId: merchant.production, gateway: 'gateway_a', baseUrl: 'http://127.0.0.1:9/', credentials: { secretKey: 'sk_live_their_own', webhookSecret: 'whsec_their_own_secret' } });
    await service.admin.routing.set({ environmentId: merchant.production, method: 'PIX', gateway: 'gateway_a' } as never);
    await page.goto(`${service.url}/dashboard/e/${merchant.production}/gateways`);
    await page.getByRole('switch', { name: 'gateway_a enabled' }).dispatchEvent('click');
    const live = page.getByRole('dialog', { name: 'Disable gateway_a?' });
    await live.getByText('Production: Padaria Central / Loja online').waitFor();
    await live.getByText(/New Pix payments will fail: no other enabled gateway is in their routing rule/).waitFor();
    const disable = live.getByRole('button', { name: 'Disable gateway_a' });
    expect(await disable.isDisabled()).toBe(true);
    await live.getByLabel('Type Loja online to confirm').fill('Loja');
    expect(await disable.isDisabled()).toBe(true);
    await live.getByLabel('Type Loja online to confirm').fill('Loja online');
    await shot(page, 'gateway-disable-production');
    await disable.click();
    await page.getByText('gateway_a disabled.').waitFor();
    expect((await service.admin.gateways.list({ environmentId: merchant.production })).find((a) => a.gateway === 'gateway_a')!.enabled).toBe(false);
    expect(owner!.problems).toEqual([]);
  }, 60_000);

  it('a viewer sees the actions but cannot use them, and is told why', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const problems = watchPage(page, service.url);
    await logIn(page, service.url, await createMember(service, merchant.organizationId, 'viewer'));
    const { items } = await service.admin.payments.list({ environmentId: merchant.sandbox, method: 'pix' } as never);
    await page.goto(`${service.url}/dashboard/e/${merchant.sandbox}/payments/${items[0]!.id}`);
    await page.getByRole('group', { name: 'Actions' }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel payment' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: /^Sync from/ }).isDisabled()).toBe(true);
    await page.getByText('Your role in this organization can read but not act').waitFor();
    expect(await page.getByText('Simulate (sandbox)').count()).toBe(0);
    await page.goto(`${service.url}/dashboard/e/${merchant.sandbox}/payments`);
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    expect(await page.getByRole('button', { name: 'New test payment' }).count()).toBe(0);
    await shot(page, 'viewer-payment');
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('where no simulator plays a sandbox, it says what to configure instead of offering test payments', async () => {
    const page = owner!.page;
    const running = service.services.sandbox;
    service.services.sandbox = null; // as in a service that runs no simulators (production)
    try {
      const project = await service.admin.projects.create({ organizationId: merchant.organizationId, name: 'Loja física', withEnvironments: true });
      const sandbox = (project as unknown as { environments: { id: string; kind: string }[] }).environments.find((e) => e.kind === 'sandbox')!.id;
      expect(await service.admin.gateways.list({ environmentId: sandbox })).toEqual([]);
      await page.goto(`${service.url}/dashboard/e/${sandbox}/payments`);
      const notice = page.getByTestId('test-payment-notice');
      await notice.getByText('Test payments need a gateway first').waitFor();
      expect(await page.getByRole('button', { name: 'New test payment' }).count()).toBe(0);
      await page.getByTestId('sandbox-banner').getByText('No gateway simulator runs for this sandbox').waitFor();
      await shot(page, 'no-simulators');
      await notice.getByRole('link', { name: 'Gateways & routing' }).click();
      await page.waitForURL(new RegExp(`/e/${sandbox}/gateways$`));
    } finally {
      service.services.sandbox = running;
    }
    expect(owner!.problems).toEqual([]);
  }, 60_000);
});
