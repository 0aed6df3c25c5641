/**
 * The lists a merchant works with, in Chromium (issue 27, item 5; its
 * acceptance line: "A Chromium journey: search by customer e-mail, export
 * CSV of 5,000 payments, cancel a card payment, cancel a subscription at
 * period end"). An environment with 5,000 payments (4,998 inserted in one
 * statement, a Pix and a card made through /v1), one service, one browser,
 * one login for the whole file: search by the customer's e-mail finds the
 * payment, the total says how many match, the Amount header sorts (mouse and
 * keyboard, aria-sort), "Export CSV" downloads all 5,000 rows, the card
 * payment is canceled from its page and a subscription canceled at the end
 * of its period. Skipped only where /usr/bin/chromium is missing.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, watchPage } from '../support/browser';
import { insertPayments } from '../support/bulk-payments';

const TOTAL = 5_000;
const EMAIL = 'Carla.Ferreira@Loja.test';

let sandboxed: SandboxedService;
let browser: Browser;
let page: Page;
let problems: string[];
let environmentId: string;
let baseUrl: string;
let carlaId: string;
let cardId: string;

const api = (method: 'GET' | 'POST', path: string, body?: unknown) => call(baseUrl, method, path, { key: sandboxed.tenant.apiKey, body });
const shot = (name: string) => page.screenshot({ path: `/tmp/e2e-lists-${name}.png`, fullPage: false });
const firstRowId = () => page.getByRole('table', { name: 'Payments' }).locator('tbody tr').first().locator('td').first().innerText();

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  sandboxed = await startSandboxedService({ simulatorsInService: true, routes: { PIX: 'gateway_a', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_b' } });
  baseUrl = sandboxed.service.url;
  environmentId = sandboxed.tenant.environmentId;
  await insertPayments(sandboxed.service, environmentId, { count: TOTAL - 2, prefix: 'bulk', amounts: [1000, 2500, 2500, 9990] });
  const carla = await api('POST', '/v1/payments', validPayment({ amount: 123456, customer: { name: 'Carla Ferreira', email: EMAIL.toLowerCase(), document: '123.456.789-09' } }));
  expect(carla.status, carla.text).toBe(201);
  carlaId = carla.body.id;
  const card = await api('POST', '/v1/payments', validPayment({ method: 'card', amount: 555 }));
  expect(card.status, card.text).toBe(201);
  cardId = card.body.id;
  const owner = await createMember(sandboxed.service, sandboxed.tenant.organizationId, 'owner');
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.setDefaultTimeout(30_000);
  problems = watchPage(page, baseUrl);
  await logIn(page, baseUrl, owner, 60_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await sandboxed?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

describe.skipIf(!chromiumAvailable)('the payments list of an environment with 5,000 payments', () => {
  it('says how many there are, and finds a payment by its customer e-mail, whatever the case', async () => {
    await page.goto(`${baseUrl}/dashboard/e/${environmentId}/payments`);
    await page.getByTestId('list-total').getByText('5,000 payments').waitFor();
    await page.getByRole('textbox', { name: 'Search' }).fill(EMAIL.toUpperCase());
    await page.getByTestId('list-total').getByText('1 payment', { exact: true }).waitFor();
    expect(await firstRowId()).toBe(carlaId);
    expect(page.url()).toContain(`q=${encodeURIComponent(EMAIL.toUpperCase())}`);
    await shot('search-email');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByTestId('list-total').getByText('5,000 payments').waitFor();
  }, 90_000);

  it('sorts by amount from the column header, with the mouse and the keyboard, and says so (aria-sort)', async () => {
    const amount = page.getByRole('columnheader', { name: /Amount/ });
    expect(await amount.getAttribute('aria-sort')).toBe('none');
    expect(await page.getByRole('columnheader', { name: /Created/ }).getAttribute('aria-sort')).toBe('descending');
    await amount.getByRole('button').click();
    await page.waitForURL(/sort=amount_desc/);
    await expect.poll(firstRowId, { timeout: 30_000 }).toBe(carlaId);
    expect(await amount.getAttribute('aria-sort')).toBe('descending');
    await amount.getByRole('button').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/sort=amount_asc/);
    await expect.poll(firstRowId, { timeout: 30_000 }).toBe(cardId);
    expect(await amount.getAttribute('aria-sort')).toBe('ascending');
    expect(await page.getByRole('columnheader', { name: /Created/ }).getAttribute('aria-sort')).toBe('none');
    await shot('sorted-by-amount');
  }, 90_000);

  it('exports all 5,000 payments as CSV, in the order shown', async () => {
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^payments-Test-project-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
    const path = await download.path();
    const lines = readFileSync(path, 'utf8').split('\r\n').filter((line) => line !== '');
    expect(lines).toHaveLength(TOTAL + 1);
    expect(lines[0]!.startsWith('id,externalId,status,method,gateway,amount,')).toBe(true);
    expect(new Set(lines.slice(1).map((line) => line.split(',')[0])).size).toBe(TOTAL);
    // Sorted as the list: the card's 5.55 first.
    expect(lines[1]!.startsWith(`${cardId},`)).toBe(true);
    expect(lines[1]).toContain(',5.55,0.00,BRL,');
  }, 120_000);

  it('cancels the card payment from its page', async () => {
    await page.goto(`${baseUrl}/dashboard/e/${environmentId}/payments/${cardId}`);
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    const confirm = page.getByRole('dialog', { name: `Cancel payment ${cardId}?` });
    await confirm.getByRole('button', { name: 'Cancel payment' }).click();
    await page.getByText(`Payment ${cardId} canceled.`).waitFor();
    expect((await sandboxed.service.admin.payments.get({ paymentId: cardId })).payment.status).toBe('canceled');
    await shot('card-canceled');
  }, 90_000);

  it('cancels a subscription at the end of its period', async () => {
    const created = await api('POST', '/v1/subscriptions', {
      amount: 4990,
      interval: 'monthly',
      externalId: 'plano-mensal',
      customer: { name: 'Carla Ferreira', email: EMAIL.toLowerCase(), document: '12345678909' },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    // Found in the subscriptions list by the customer's e-mail too.
    await page.goto(`${baseUrl}/dashboard/e/${environmentId}/subscriptions?q=${encodeURIComponent(EMAIL)}`);
    await page.getByTestId('list-total').getByText('1 subscription', { exact: true }).waitFor({ timeout: 60_000 });
    await page.getByRole('link', { name: id }).click();
    await page.getByRole('button', { name: 'Cancel at period end' }).click();
    const confirm = page.getByRole('dialog', { name: `Cancel ${id} at the end of its period?` });
    await confirm.getByRole('button', { name: 'Cancel at period end' }).click();
    await page.getByText(`Subscription ${id} ends at the end of its period.`).waitFor();
    await expect
      .poll(async () => (await sandboxed.service.admin.subscriptions.get({ subscriptionId: id })).subscription.cancelAtPeriodEnd, { timeout: 15_000 })
      .toBe(true);
    await shot('subscription-period-end');
    expect(problems).toEqual([]);
  }, 90_000);

  // Last: it grows the list past what a list counts (decision 25).
  it('says "10,000+ payments" once more than 10,000 match, and the exact count again under it', async () => {
    await insertPayments(sandboxed.service, environmentId, { count: 10_001 - TOTAL, prefix: 'more' });
    await page.goto(`${baseUrl}/dashboard/e/${environmentId}/payments`);
    await page.getByTestId('list-total').getByText('10,000+ payments', { exact: true }).waitFor();
    await page.getByRole('textbox', { name: 'Search' }).fill(EMAIL.toUpperCase());
    await page.getByTestId('list-total').getByText('1 payment', { exact: true }).waitFor();
    expect(problems).toEqual([]);
  }, 90_000);
});
