/**
 * Refunds from the dashboard (decision 18), in a real browser (Debian's
 * Chromium) against a real service serving the production build, its Pix
 * payments on the gateway_a simulator over real sockets:
 * - an owner opens a paid payment, refunds part of it (the amount prefilled
 *   with what is refundable, a confirmation naming the amount, that the money
 *   goes back to the customer, and where it lands), sees the refund pending
 *   in the timeline, settles it with the sandbox's gateway control and sees
 *   it succeeded; a refund made meanwhile through the API makes the next one
 *   too big, and the service's refusal names what is refundable; the rest is
 *   refunded, and the Refund button goes once nothing is refundable;
 * - the payments list's "Refunded" filter shows refunded payments only, with
 *   what was refunded under the amount;
 * - a viewer sees the refunds but has no Refund button and no gateway control.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, settled, watchPage } from '../support/browser';

const SHOTS = 'test-results';

let sandboxed: SandboxedService;
let browser: Browser;
let page: Page;
let problems: string[];
let owner: string;
let viewer: string;
let environmentId: string;
let baseUrl: string;
let paidId: string;
let untouchedId: string;

const api = (method: 'GET' | 'POST', path: string, body?: unknown) => call(baseUrl, method, path, { key: sandboxed.tenant.apiKey, body });

/** A Pix of `amount` cents the customer paid at the gateway_a simulator. */
async function paidPix(amount: number): Promise<string> {
  const created = await api('POST', '/v1/payments', validPayment({ amount }));
  expect(created.status, created.text).toBe(201);
  await sandboxed.sandbox.sims.gateway_a.payPayment(created.body.gatewayRef);
  await sandboxed.sandbox.sims.gateway_a.flushWebhooks();
  await eventually(async () => (await api('GET', `/v1/payments/${created.body.id}`)).body.status === 'paid', 15_000, `${created.body.id} paid`);
  return created.body.id;
}

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  sandboxed = await startSandboxedService({ simulatorsInService: true, routes: { PIX: 'gateway_a' } });
  baseUrl = sandboxed.service.url;
  environmentId = sandboxed.tenant.environmentId;
  owner = await createMember(sandboxed.service, sandboxed.tenant.organizationId, 'owner');
  viewer = await createMember(sandboxed.service, sandboxed.tenant.organizationId, 'viewer');
  paidId = await paidPix(5000);
  untouchedId = await paidPix(1200);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sandboxed?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

async function openAs(email: string, path: string): Promise<Page> {
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Generous waits: the page is right or wrong whatever the machine's load, only slower.
  page.setDefaultTimeout(30_000);
  problems = watchPage(page, baseUrl);
  await logIn(page, baseUrl, email, 60_000);
  await page.goto(`${baseUrl}/dashboard/e/${environmentId}${path}`);
  return page;
}

/** R$50.00, R$ 50,00…: whatever the browser's locale makes of it, the digits of these cents. */
const money = (cents: number) => new RegExp(`R\\$\\s?${Math.floor(cents / 100)}[.,]${String(cents % 100).padStart(2, '0')}`);

const refundButton = () => page.getByRole('button', { name: 'Refund', exact: true });
const summary = () => page.getByTestId('refund-summary');
const entry = (refundId: string): Locator => page.getByRole('group', { name: `Refund ${refundId}` });

/** Opens the form, sets the amount and reason, reviews, and answers the confirmation; returns the confirmation dialog. */
async function askRefund(amount: string | null, reason?: string): Promise<Locator> {
  await refundButton().click();
  const form = page.getByRole('dialog', { name: 'Refund payment' });
  await form.waitFor();
  if (amount !== null) await form.getByLabel('Amount (BRL)').fill(amount);
  if (reason) await form.getByLabel('Reason').fill(reason);
  await form.getByRole('button', { name: 'Review refund' }).click();
  const confirm = page.getByRole('dialog', { name: /^Refund R\$/ });
  await confirm.waitFor();
  return confirm;
}

/** The refund a success notification names (by its amount: an earlier refund's notice may still be showing). */
async function createdRefundId(amount: RegExp): Promise<string> {
  const notice = page.getByText(new RegExp(`^Refund ref_\\w+ of ${amount.source} created \\(pending\\)\\.$`));
  await notice.waitFor();
  return /(ref_\w+)/.exec((await notice.textContent())!)![1]!;
}

describe.skipIf(!chromiumAvailable)('refunds on the payment page', { timeout: 240_000 }, () => {
  it('an owner refunds part, sees it pending then succeeded in the timeline, is told what is refundable after a refund elsewhere, refunds the rest', async () => {
    await openAs(owner, `/payments/${paidId}`);
    await page.getByRole('heading', { name: 'Refunds' }).waitFor();
    expect(await summary().innerText()).toMatch(new RegExp(`Refunded ${money(0).source} of ${money(5000).source} · ${money(5000).source} refundable`));

    // The form is prefilled with everything refundable; more than that is refused on the page before anything is sent.
    await refundButton().click();
    const form = page.getByRole('dialog', { name: 'Refund payment' });
    expect(await form.getByLabel('Amount (BRL)').inputValue()).toBe('50.00');
    await form.getByLabel('Amount (BRL)').fill('60');
    await form.getByRole('button', { name: 'Review refund' }).click();
    await form.getByText(new RegExp(`At most ${money(5000).source} is refundable\\.`)).waitFor();
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'hidden' });

    // Part of it: the confirmation names the amount, the customer and the sandbox; a cancel changes nothing.
    let confirm = await askRefund('20', 'one item returned');
    const text = await confirm.innerText();
    expect(text).toMatch(new RegExp(`${money(2000).source} of this ${money(5000).source} payment goes back to the customer, Maria Silva\\. A refund cannot be taken back\\.`));
    expect(text).toMatch(/Sandbox/);
    mkdirSync(SHOTS, { recursive: true });
    await settled(page); // the dialog's opening transition
    await page.screenshot({ path: `${SHOTS}/refund-confirm.png` });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect((await sandboxed.service.admin.refunds.list({ environmentId, paymentId: paidId })).items.length).toBe(0);

    confirm = await askRefund('20', 'one item returned');
    await confirm.getByRole('button', { name: money(2000) }).click();
    const first = await createdRefundId(money(2000));
    // Pending in the timeline, under its refund.created event, until the gateway gives the money back.
    await entry(first).getByText('pending', { exact: true }).waitFor();
    await entry(first).getByText('Reason: one item returned').waitFor();
    expect((await api('GET', `/v1/refunds/${first}`)).body).toMatchObject({ status: 'pending', amount: 2000, paymentId: paidId, reason: 'one item returned' });
    await page.screenshot({ path: `${SHOTS}/refund-pending.png`, fullPage: true });

    // The sandbox's gateway control settles it; the service hears it from the gateway's notification.
    await entry(first).getByRole('button', { name: 'Settle refund' }).click();
    await entry(first).getByText('succeeded', { exact: true }).waitFor();
    await page.getByText('refund.succeeded', { exact: true }).waitFor();
    await expect.poll(() => summary().innerText()).toMatch(new RegExp(`Refunded ${money(2000).source} of ${money(5000).source} · ${money(3000).source} refundable`));
    expect((await api('GET', `/v1/payments/${paidId}`)).body).toMatchObject({ status: 'paid', amountRefunded: 2000 });

    // The form still says 30.00 when a refund made through the API takes 5.00 of it: the service refuses, naming what is refundable.
    confirm = await askRefund(null);
    expect(await confirm.innerText()).toMatch(money(3000));
    const elsewhere = await api('POST', `/v1/payments/${paidId}/refunds`, { externalId: 'refund-from-the-shop', amount: 500 });
    expect(elsewhere.status, elsewhere.text).toBe(201);
    await confirm.getByRole('button', { name: money(3000) }).click();
    const refusal = page.getByText(/amount: must be at most 2500: 2500 of 5000 is refundable/);
    await refusal.waitFor();
    expect((await refusal.innerText()).match(/must be at most/g)).toHaveLength(1); // said once, not once more from its issue
    await expect.poll(() => summary().innerText()).toMatch(new RegExp(`${money(500).source} pending at gateway_a · ${money(2500).source} refundable`));
    await entry(elsewhere.body.id).getByRole('button', { name: 'Settle refund' }).click();
    await entry(elsewhere.body.id).getByText('succeeded', { exact: true }).waitFor();

    // The rest, prefilled: once it is asked for, nothing is refundable and the button is gone.
    confirm = await askRefund(null);
    await confirm.getByRole('button', { name: money(2500) }).click();
    const last = await createdRefundId(money(2500));
    await entry(last).getByText('pending', { exact: true }).waitFor();
    await refundButton().waitFor({ state: 'detached' });
    await entry(last).getByRole('button', { name: 'Settle refund' }).click();
    await entry(last).getByText('succeeded', { exact: true }).waitFor();
    await expect.poll(() => summary().innerText()).toMatch(new RegExp(`Refunded ${money(5000).source} of ${money(5000).source} · nothing left to refund`));
    expect((await api('GET', `/v1/payments/${paidId}`)).body).toMatchObject({ status: 'paid', amountRefunded: 5000 });
    expect(await page.getByText('refund.succeeded', { exact: true }).count()).toBe(3);
    await page.screenshot({ path: `${SHOTS}/refund-timeline.png`, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the payments list filters refunded payments', async () => {
    await openAs(owner, '/payments');
    const table = page.getByRole('table', { name: 'Payments' });
    await table.getByText(untouchedId).waitFor();
    await page.getByRole('combobox', { name: 'Refunded' }).click();
    await page.getByRole('option', { name: 'yes' }).click();
    await page.waitForURL(/refunded=yes/);
    await table.getByText(untouchedId).waitFor({ state: 'detached' });
    await table.getByText(paidId).waitFor();
    // What was given back shows under the amount.
    await table.getByRole('row').filter({ hasText: paidId }).getByText(new RegExp(`^refunded ${money(5000).source}$`)).waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a viewer sees the refunds, without a Refund button or the gateway control', async () => {
    const another = await paidPix(800);
    const pending = await api('POST', `/v1/payments/${another}/refunds`, { externalId: 'viewer-sees-this', amount: 300 });
    expect(pending.status, pending.text).toBe(201);
    await openAs(viewer, `/payments/${another}`);
    await entry(pending.body.id).getByText('pending', { exact: true }).waitFor();
    expect(await summary().innerText()).toMatch(new RegExp(`${money(500).source} refundable`));
    expect(await refundButton().count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Settle refund' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});
