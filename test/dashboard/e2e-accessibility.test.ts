/**
 * axe-core on every page of the dashboard and its main modals, in Chromium,
 * against the production build: before logging in (log-in, forgot and reset
 * password, invitation), as a merchant's owner (every section, a Pix payment
 * with its code and a card payment, a subscription, the new test payment,
 * new endpoint and new key modals, a delivery's drawer) and as a platform
 * operator. Any critical or serious violation fails its page, printed with
 * where and why; the counts by rule of every impact are printed at the end.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { eventually as eventuallyValue } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { startPeopleMail, type PeopleMail } from '../support/people-mail';
import { createTenant } from '../support/tenant';
import { axeScan, blocking, countByRule, describeViolations, type AxeViolation } from '../support/axe';
import { buildDashboard, chromiumAvailable, createMember, eventually, launchChromium, logIn, PASSWORD, startReceiver, uniqueEmail, watchPage } from '../support/browser';

let world: SandboxedService;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let base: string;
let pixId: string;
let cardId: string;
let subscriptionId: string;
let invitationUrl: string;
let mail: PeopleMail;
let ownerEmail: string;
let operatorEmail: string;
let productionId: string;
let foreignEnvironmentId: string;
let failedDeliveries: number;
const problems: string[] = [];
const found: AxeViolation[] = [];

/** A Pix whose externalId carries a right-to-left override: it must read as typed, not as "bidi-exe.png". */
const SPOOFED_EXTERNAL_ID = 'bidi-\u202Egnp.exe';

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  mail = await startPeopleMail();
  world = await startSandboxedService({
    simulatorsInService: true,
    env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', ...mail.env },
    routes: { PIX: 'gateway_a', CARD: 'gateway_b', SUBSCRIPTION: 'gateway_a' },
  });
  const { service, tenant } = world;
  base = `${service.url}/dashboard/e/${tenant.environmentId}`;
  receiver = await startReceiver();
  await service.admin.webhooks.createEndpoint({ environmentId: tenant.environmentId, url: receiver.url, description: 'Order service' });
  const post = (path: string, body: unknown) => call(service.url, 'POST', path, { key: tenant.apiKey, body });
  const pix = await post('/v1/payments', validPayment({ externalId: SPOOFED_EXTERNAL_ID }));
  const card = await post('/v1/payments', validPayment({ method: 'card', externalId: 'card-order-1' }));
  const subscription = await post('/v1/subscriptions', { amount: 2990, interval: 'monthly', externalId: 'plan-1', customer: validPayment().customer });
  expect([pix.status, card.status, subscription.status]).toEqual([201, 201, 201]);
  [pixId, cardId, subscriptionId] = [pix.body.id, card.body.id, subscription.body.id];
  await service.admin.simulators.payment({ paymentId: cardId, outcome: 'pay' });
  await eventually('deliveries to the endpoint', () => receiver.received.length >= 3);
  // Deliveries that failed (the receiver down for a moment; one attempt, retries being off), for the deliveries page and its resend.
  receiver.state.failing = true;
  const before = receiver.received.length;
  expect((await post('/v1/payments', validPayment({ externalId: 'receiver-down' }))).status).toBe(201);
  await eventually('a failed attempt', () => receiver.received.length > before);
  receiver.state.failing = false;
  const settled = async () => {
    const items = (await service.admin.webhooks.listDeliveries({ environmentId: tenant.environmentId, limit: 100 })).items;
    return items.every((d) => d.status === 'SENT' || d.status === 'FAILED') ? items.filter((d) => d.status === 'FAILED').length : null;
  };
  failedDeliveries = await eventuallyValue(async () => (await settled()) ?? undefined, 10_000, 'every delivery with an outcome');
  expect(failedDeliveries).toBeGreaterThan(0);
  // The project's production environment, empty; and another organization, which this one's people must not see.
  productionId = (await service.admin.environments.create({ projectId: tenant.projectId, kind: 'production' })).id;
  foreignEnvironmentId = (await createTenant(service)).environmentId;
  ownerEmail = await createMember(service, tenant.organizationId, 'owner');
  // As in the embedded demo, the operator also owns the merchant (an operator alone has no environment to start in).
  operatorEmail = uniqueEmail('operator');
  await service.admin.users.create({ email: operatorEmail, password: PASSWORD, platformOperator: true });
  await service.admin.members.add({ organizationId: tenant.organizationId, email: operatorEmail, role: 'owner' });
  const invitee = uniqueEmail('invitee');
  await service.admin.members.invite({ organizationId: tenant.organizationId, email: invitee, role: 'viewer' });
  invitationUrl = await mail.link(service, invitee, 'invitation');
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  if (found.length > 0) console.log(`axe, failing elements by rule over every view:\n${JSON.stringify(countByRule(found), null, 2)}`);
  await browser?.close();
  await receiver?.close();
  await world?.stop();
  await mail?.close();
});

async function newPage(): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  // A whole page load (its chunks, its queries) on a busy machine.
  page.setDefaultTimeout(30_000);
  problems.push(...watchPage(page, world.service.url));
  return page;
}

/** Scans what the page shows once its transitions have ended; a critical or serious violation fails the view (and the view's other scans still run). */
async function expectAccessible(page: Page, view: string) {
  // axeScan waits for the transitions to end.
  const violations = await axeScan(page);
  found.push(...violations);
  const minor = violations.filter((v) => !blocking([v]).length);
  if (minor.length) console.log(describeViolations(view, minor).join('\n'));
  expect.soft(describeViolations(view, blocking(violations))).toEqual([]);
}

const dialog = (page: Page) => page.getByRole('dialog');

describe.skipIf(!chromiumAvailable)('accessibility of the dashboard (axe-core)', () => {
  describe('before logging in', () => {
    let page: Page;
    beforeAll(async () => {
      page = await newPage();
    });

    it('log-in', async () => {
      await page.goto(`${world.service.url}/dashboard/`);
      await page.getByRole('button', { name: 'Log in' }).waitFor();
      await expectAccessible(page, 'log-in');
      // With the errors a wrong attempt shows.
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByText('Enter your e-mail address').waitFor();
      await expectAccessible(page, 'log-in with errors');
    });

    it('forgot password', async () => {
      await page.goto(`${world.service.url}/dashboard/forgot-password`);
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
      await expectAccessible(page, 'forgot password');
    });

    it('reset password', async () => {
      await page.goto(`${world.service.url}/dashboard/reset-password#not-a-real-token`);
      await page.getByRole('button', { name: 'Set the password' }).waitFor();
      await expectAccessible(page, 'reset password');
    });

    it('invitation: names the organization and the role', async () => {
      await page.goto(invitationUrl);
      await page.getByText(/Join Test organization as viewer/).waitFor();
      await expectAccessible(page, 'invitation');
    });
  });

  describe("as a merchant's owner", () => {
    let page: Page;
    beforeAll(async () => {
      page = await newPage();
      await logIn(page, world.service.url, ownerEmail);
    }, 30_000);

    it('home; its charts count in whole numbers', async () => {
      await page.getByText('Payments per day, by status').waitFor();
      const chart = page.locator('.recharts-wrapper').first();
      await chart.waitFor();
      await expectAccessible(page, 'home');
      await page.screenshot({ path: '/tmp/a11y-home.png' });
      const ticks = await chart.locator('.recharts-yAxis-tick-labels text').allTextContents();
      expect(ticks.length, await chart.innerHTML()).toBeGreaterThan(1);
      expect(ticks.filter((tick) => !/^\d+$/.test(tick.trim()))).toEqual([]);
    });

    it('an empty period says so instead of an empty chart (production, nothing in it yet)', async () => {
      await page.getByText('Production', { exact: true }).click();
      await page.waitForURL(new RegExp(`/dashboard/e/${productionId}/?$`));
      await expect.poll(() => page.getByText('Nothing was created in this period.').count(), { timeout: 15_000 }).toBe(2);
      await expectAccessible(page, 'production home');
      await page.screenshot({ path: '/tmp/a11y-production-home.png' });
      await page.goto(base);
    });

    it("a link to another organization's page says it is not available, and lands on the person's own start", async () => {
      await page.goto(`${world.service.url}/dashboard/e/${foreignEnvironmentId}/payments`);
      await page.getByText('That page is not available to this account').waitFor();
      await page.waitForURL(base);
      await page.getByText('Payments per day, by status').waitFor();
      await expectAccessible(page, 'not available');
    });

    it('payments list; a right-to-left override in an externalId is shown, not applied', async () => {
      await page.goto(`${base}/payments`);
      await page.getByRole('table', { name: 'Payments' }).waitFor();
      await expectAccessible(page, 'payments');
      await page.screenshot({ path: '/tmp/a11y-payments.png' });
      const shown = page.getByRole('table', { name: 'Payments' }).locator('bdi', { hasText: 'gnp.exe' });
      await expect(shown.innerText()).resolves.toBe('bidi-U+202Egnp.exe');
      await expect(shown.evaluate((element) => element.textContent)).resolves.not.toContain('\u202E');
    });

    it('new test payment modal', async () => {
      await page.getByRole('button', { name: 'New test payment' }).click();
      await dialog(page).getByLabel('External id').waitFor();
      await expectAccessible(page, 'new test payment');
      await page.keyboard.press('Escape');
      await dialog(page).waitFor({ state: 'hidden' });
    });

    it('a pending Pix, with its code', async () => {
      await page.goto(`${base}/payments/${pixId}`);
      await page.getByRole('button', { name: 'Copy Pix code' }).waitFor();
      await page.getByRole('heading', { name: 'Timeline' }).waitFor();
      await expectAccessible(page, 'Pix payment');
      await page.screenshot({ path: '/tmp/a11y-pix.png', fullPage: true });
      await expect(page.locator('dd bdi', { hasText: 'gnp.exe' }).innerText()).resolves.toBe('bidi-U+202Egnp.exe');
    });

    it('a paid card payment, and a delivery drawer', async () => {
      await page.goto(`${base}/payments/${cardId}`);
      await page.getByText('payment.paid', { exact: true }).waitFor();
      await expectAccessible(page, 'card payment');
      await page.getByRole('button', { name: /^Delivery wd_/ }).first().click();
      await dialog(page).getByText('Request (every attempt sends these exact bytes)').waitFor();
      await expectAccessible(page, 'delivery drawer');
      await page.keyboard.press('Escape');
      await dialog(page).waitFor({ state: 'hidden' });
    });

    it('subscriptions list', async () => {
      await page.goto(`${base}/subscriptions`);
      await page.getByRole('table', { name: 'Subscriptions' }).waitFor();
      await expectAccessible(page, 'subscriptions');
    });

    it('a subscription', async () => {
      await page.goto(`${base}/subscriptions/${subscriptionId}`);
      await page.getByRole('heading', { name: 'Timeline' }).waitFor();
      await expectAccessible(page, 'subscription');
    });

    it('webhook endpoints, and the new endpoint modal', async () => {
      await page.goto(`${base}/webhooks`);
      await page.getByText('Order service').waitFor();
      await expectAccessible(page, 'webhook endpoints');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await dialog(page).getByLabel('URL').waitFor();
      await expectAccessible(page, 'new endpoint');
      await page.keyboard.press('Escape');
      await dialog(page).waitFor({ state: 'hidden' });
    });

    it('deliveries; "Resend all failed" says how many, before anything is sent', async () => {
      await page.goto(`${base}/deliveries`);
      await page.getByRole('table', { name: 'Deliveries' }).waitFor();
      const resend = page.getByRole('button', { name: `Resend all failed (${failedDeliveries})` });
      await resend.waitFor();
      await expectAccessible(page, 'deliveries');
      await resend.click();
      await dialog(page).getByText(`Resend ${failedDeliveries} failed deliver${failedDeliveries === 1 ? 'y' : 'ies'}?`).waitFor();
      await expectAccessible(page, 'resend confirmation');
      await page.screenshot({ path: '/tmp/a11y-resend-confirmation.png' });
      await page.keyboard.press('Escape');
      await dialog(page).waitFor({ state: 'hidden' });
    });

    it('API keys, and the new key modal', async () => {
      await page.goto(`${base}/keys`);
      await page.getByRole('table', { name: 'API keys' }).waitFor();
      await expectAccessible(page, 'API keys');
      await page.getByRole('button', { name: 'Create key' }).click();
      await dialog(page).getByLabel('Name').waitFor();
      await expectAccessible(page, 'new key');
      await page.keyboard.press('Escape');
      await dialog(page).waitFor({ state: 'hidden' });
    });

    it('gateways and routing', async () => {
      await page.goto(`${base}/gateways`);
      await page.getByRole('heading', { name: 'Routing', exact: true }).waitFor();
      await expectAccessible(page, 'gateways');
    });

    it('organization and members', async () => {
      await page.goto(`${base}/organization`);
      await page.getByRole('table', { name: 'Members' }).waitFor();
      await expectAccessible(page, 'organization');
    });

    it('audit log, an entry open', async () => {
      await page.goto(`${base}/audit`);
      await page.getByRole('table', { name: 'Audit log' }).waitFor();
      await page.getByRole('button', { name: 'Show changes' }).first().click();
      await page.getByRole('table', { name: /^Before and after/ }).waitFor();
      await expectAccessible(page, 'audit log');
    });

    it('sessions', async () => {
      await page.goto(`${world.service.url}/dashboard/account/sessions`);
      await page.getByRole('table', { name: 'Sessions' }).waitFor();
      await expectAccessible(page, 'sessions');
    });

    it('security (second factor)', async () => {
      await page.goto(`${world.service.url}/dashboard/account/security`);
      await page.getByRole('button', { name: 'Set up an authenticator app' }).waitFor();
      await expectAccessible(page, 'security');
    });
  });

  describe('as a platform operator', () => {
    let page: Page;
    beforeAll(async () => {
      page = await newPage();
      await logIn(page, world.service.url, operatorEmail);
    }, 30_000);

    it('organizations, and the create organization modal', async () => {
      await page.goto(`${world.service.url}/dashboard/operator/organizations`);
      await page.getByRole('button', { name: 'Create organization' }).waitFor();
      await page.getByRole('heading', { name: 'Reconciliation' }).waitFor();
      await expectAccessible(page, 'operator organizations');
      await page.getByRole('button', { name: 'Create organization' }).click();
      await dialog(page).getByLabel('Name').waitFor();
      await expectAccessible(page, 'create organization');
      await page.keyboard.press('Escape');
      await dialog(page).waitFor({ state: 'hidden' });
    });

    it('the audit log of every organization', async () => {
      await page.goto(`${world.service.url}/dashboard/operator/audit`);
      await page.getByRole('table', { name: 'Audit log' }).waitFor();
      await expectAccessible(page, 'operator audit log');
    });

    it("a merchant's payments and home, as the operator sees them", async () => {
      await page.goto(`${base}/payments`);
      await page.getByRole('table', { name: 'Payments' }).waitFor();
      await expectAccessible(page, 'operator: payments');
      await page.goto(base);
      await page.getByText('Payments per day, by status').waitFor();
      await expectAccessible(page, 'operator: home');
    });
  });

  it('loaded nothing from elsewhere and broke no policy', () => {
    expect(problems).toEqual([]);
  });
});
