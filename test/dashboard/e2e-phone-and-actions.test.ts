/**
 * The dashboard where the eye is and on a phone, in Chromium against the
 * production build: a payment refunded from its header (form and
 * confirmation), an endpoint added and sent a test event that a real local
 * receiver gets signed (checked with the service's own verification) while
 * the page shows the outcome; at 390 x 844 the payments list's first row is
 * wholly on the first screen and its filters open from a button; and axe finds
 * nothing critical or serious at phone size on Home, Payments, a payment,
 * Subscriptions, Deliveries and Endpoints. Screenshots go to test-results/.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../server/contract/webhook-signature';
import { WEBHOOK_TEST_EVENT_TYPE } from '../../server/contract/event-types';
import { axeScan, blocking, describeViolations } from '../support/axe';
import { buildDashboard, chromiumAvailable, createMember, eventually, launchChromium, logIn, settled, startReceiver, watchPage } from '../support/browser';
import { call, validPayment } from '../support/http';
import { eventually as eventuallyValue } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

const SHOTS = 'test-results';
const PHONE = { width: 390, height: 844 };

let sandboxed: SandboxedService;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let page: Page;
let problems: string[] = [];
let owner: string;
let environmentId: string;
let baseUrl: string;
let paidId: string;
let subscriptionId: string;

const api = (method: 'GET' | 'POST', path: string, body?: unknown) => call(baseUrl, method, path, { key: sandboxed.tenant.apiKey, body });
/** R$50.00, R$ 50,00…: whatever the browser's locale makes of it, the digits of these cents. */
const money = (cents: number) => new RegExp(`R\\$\\s?${Math.floor(cents / 100)}[.,]${String(cents % 100).padStart(2, '0')}`);

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  sandboxed = await startSandboxedService({ simulatorsInService: true, env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' }, routes: { PIX: 'gateway_a', SUBSCRIPTION: 'gateway_a' } });
  baseUrl = sandboxed.service.url;
  environmentId = sandboxed.tenant.environmentId;
  owner = await createMember(sandboxed.service, sandboxed.tenant.organizationId, 'owner');
  // The subscription first: the payment is then the newest, the payments list's first row.
  const subscription = await api('POST', '/v1/subscriptions', { amount: 2990, interval: 'monthly', externalId: 'plan-phone', customer: validPayment().customer });
  expect(subscription.status, subscription.text).toBe(201);
  subscriptionId = subscription.body.id;
  const created = await api('POST', '/v1/payments', validPayment({ amount: 5000 }));
  expect(created.status, created.text).toBe(201);
  paidId = created.body.id;
  await sandboxed.sandbox.sims.gateway_a.payPayment(created.body.gatewayRef);
  await sandboxed.sandbox.sims.gateway_a.flushWebhooks();
  await eventuallyValue(async () => (await api('GET', `/v1/payments/${paidId}`)).body.status === 'paid' || undefined, 30_000, `${paidId} paid`);
  receiver = await startReceiver();
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await sandboxed?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
  expect(problems).toEqual([]);
});

async function openAs(viewport: { width: number; height: number }, path: string): Promise<Page> {
  page = await browser.newPage({ viewport });
  // Generous waits: the page is right or wrong whatever the machine's load, only slower.
  page.setDefaultTimeout(30_000);
  problems = watchPage(page, baseUrl);
  await logIn(page, baseUrl, owner, 60_000);
  await page.goto(`${baseUrl}/dashboard/e/${environmentId}${path}`);
  return page;
}

/** Whether the element is wholly inside the first screen of the viewport (nothing scrolled). */
async function onFirstScreen(locator: ReturnType<Page['locator']>, viewport: { width: number; height: number }) {
  const box = await locator.boundingBox();
  expect(box).not.toBeNull();
  return box!.x >= 0 && box!.y >= 0 && box!.x + box!.width <= viewport.width && box!.y + box!.height <= viewport.height;
}

describe.skipIf(!chromiumAvailable)('actions where the eye is, and the phone layout', { timeout: 300_000 }, () => {
  it('a payment is refunded from its header, after the form and the confirmation', async () => {
    const laptop = { width: 1280, height: 800 };
    await openAs(laptop, `/payments/${paidId}`);
    const actions = page.getByRole('group', { name: 'Actions' });
    const refund = actions.getByRole('button', { name: 'Refund', exact: true });
    await refund.waitFor();
    // Beside the amount and status, above the fold on a laptop.
    expect(await onFirstScreen(refund, laptop)).toBe(true);
    expect(await onFirstScreen(actions.getByRole('button', { name: 'Cancel payment' }), laptop)).toBe(true);
    expect(await onFirstScreen(actions.getByRole('button', { name: /^Sync from / }), laptop)).toBe(true);
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/header-actions.png` });

    await refund.click();
    const form = page.getByRole('dialog', { name: 'Refund payment' });
    await form.getByLabel('Amount (BRL)').fill('20');
    await form.getByRole('button', { name: 'Review refund' }).click();
    const confirm = page.getByRole('dialog', { name: /^Refund R\$/ });
    expect(await confirm.innerText()).toMatch(new RegExp(`${money(2000).source} of this ${money(5000).source} payment goes back to the customer`));
    await confirm.getByRole('button', { name: money(2000) }).click();
    await page.getByText(new RegExp(`^Refund ref_\\w+ of ${money(2000).source} created \\(pending\\)\\.$`)).waitFor();
    expect((await sandboxed.service.admin.refunds.list({ environmentId, paymentId: paidId })).items.map((r) => r.amount)).toEqual([2000]);
  });

  it('an endpoint added on the page is sent a signed test event, and the page shows the outcome', async () => {
    await openAs({ width: 1280, height: 860 }, '/webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.getByRole('dialog', { name: 'Signing secret' });
    const secret = (await shown.getByLabel('signing secret', { exact: true }).innerText()).trim();
    expect(secret).toMatch(/^whsec_/);

    await shown.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    await eventually('the test event at the receiver', () => receiver.received.length > 0, 30_000);
    const [request] = receiver.received;
    expect(request!.headers['x-service-event']).toBe(WEBHOOK_TEST_EVENT_TYPE);
    const timestamp = Number(request!.headers['x-service-timestamp']);
    expect(verifySignature(secret, timestamp, request!.body, String(request!.headers['x-service-signature']))).toBe(true);
    expect(JSON.parse(request!.body)).toMatchObject({ type: WEBHOOK_TEST_EVENT_TYPE, data: { endpointId: expect.stringMatching(/^whe_/) } });
    await shown.getByText('Delivered: answered 200.').waitFor();
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/test-event-sent.png` });
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'hidden' });

    // From the endpoint's row too; a receiver answering 500 is shown as such.
    receiver.state.failing = true;
    await page.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    await page.getByText('Failed: answered 500.').waitFor();
    expect(receiver.received).toHaveLength(2);
    receiver.state.failing = false;
  });

  it('at 390 x 844 the first payment is on the first screen, and the filters open from a button', async () => {
    await openAs(PHONE, '/payments');
    const rows = page.getByRole('list', { name: 'Payments' }).getByRole('listitem');
    await rows.first().waitFor();
    expect(await onFirstScreen(rows.first(), PHONE)).toBe(true);
    // Amount, customer, status and date, in one row.
    const first = await rows.first().innerText();
    expect(first).toMatch(money(5000));
    expect(first).toMatch(/Maria Silva/);
    expect(first).toMatch(/paid/i);
    expect(await page.getByRole('search', { name: 'Filters' }).count()).toBe(0);
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/phone-payments.png` });

    await page.getByRole('button', { name: 'Filters', exact: true }).click();
    const bar = page.getByRole('search', { name: 'Filters' });
    await bar.getByRole('textbox', { name: 'Search' }).waitFor();
    await bar.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'paid', exact: true }).click();
    await page.waitForURL(/status=paid/);
    await page.getByRole('button', { name: 'Hide filters' }).click();
    await page.getByRole('button', { name: 'Filters (1)' }).waitFor();
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/phone-payments-filtered.png` });

    // A row opens its payment, with its actions at the top.
    await rows.first().getByRole('link').click();
    await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Refund', exact: true }).waitFor();
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/phone-payment.png` });
  });

  it('axe finds nothing critical or serious at phone size', async () => {
    await openAs(PHONE, '');
    const views: [string, string, (p: Page) => Promise<unknown>][] = [
      ['Home', '', (p) => p.getByRole('heading', { name: 'Home' }).waitFor()],
      ['Payments', '/payments', (p) => p.getByRole('list', { name: 'Payments' }).waitFor()],
      ['a payment', `/payments/${paidId}`, (p) => p.getByRole('group', { name: 'Actions' }).waitFor()],
      ['Subscriptions', '/subscriptions', (p) => p.getByRole('list', { name: 'Subscriptions' }).getByRole('listitem').first().waitFor()],
      ['Deliveries', '/deliveries', (p) => p.getByRole('heading', { name: 'Webhook deliveries' }).waitFor()],
      ['Endpoints', '/webhooks', (p) => p.getByRole('heading', { name: 'Webhook endpoints' }).waitFor()],
    ];
    const failures: string[] = [];
    for (const [view, path, ready] of views) {
      await page.goto(`${baseUrl}/dashboard/e/${environmentId}${path}`);
      await ready(page);
      failures.push(...describeViolations(`${view} (phone)`, blocking(await axeScan(page))));
      await page.screenshot({ path: `${SHOTS}/phone-${view.replace(/\W+/g, '-').toLowerCase()}.png`, fullPage: true });
    }
    expect(failures).toEqual([]);
  });
});
