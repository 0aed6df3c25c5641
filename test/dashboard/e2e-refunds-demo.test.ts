/**
 * A refund from the dashboard as a newcomer makes one on the embedded
 * default (`npm start`: its own process, its demo organization, the gateway
 * simulators inside the service), in Debian's Chromium: the demo owner logs
 * in with the banner's password, makes a test Pix on the Payments page, pays
 * it with the simulator button, refunds part of it and sees the refund in the
 * timeline pending, then succeeded once the sandbox gateway settles it; then
 * refunds the rest, after which there is no Refund button any more.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, chromiumAvailable, launchChromium, watchPage } from '../support/browser';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

const dataDir = mkdtempSync(join(tmpdir(), 'payments-refund-demo-'));
let service: ServiceProcess;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  service = await startServiceProcess({ DATA_DIR: dataDir, LOG_FORMAT: 'pretty' }, 170_000);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

/** R$30.00, R$ 30,00…: whatever the browser's locale makes of it. */
const money = (cents: number) => new RegExp(`R\\$\\s?${Math.floor(cents / 100)}[.,]${String(cents % 100).padStart(2, '0')}`);

describe.skipIf(!chromiumAvailable)('the demo owner refunds a test payment', () => {
  it('pays a test Pix with the simulator, refunds part (pending, then succeeded), then the rest', { timeout: 240_000 }, async () => {
    const [, email, password] = /log in as (\S+) \/ (\S+)/.exec(service.output()) ?? [];
    expect(email).toBe('demo@example.com');

    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(30_000);
    problems = watchPage(page, service.url);
    await page.goto(`${service.url}/dashboard/`);
    await page.getByLabel('E-mail').fill(email!);
    await page.getByRole('textbox', { name: 'Password' }).fill(password!);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor({ timeout: 60_000 });

    // The demo has no payment yet: one made on the page, paid with the simulator.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payments', exact: true }).click();
    await page.getByRole('button', { name: 'New test payment' }).click();
    const create = page.getByRole('dialog', { name: 'New test payment' });
    await create.getByLabel('Amount (BRL)').fill('30');
    await create.getByRole('button', { name: 'Create test payment' }).click();
    await page.getByText('Gateway reference', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByText('payment.paid', { exact: true }).waitFor();

    // Part of it.
    const refund = page.getByRole('button', { name: 'Refund', exact: true });
    await refund.click();
    const form = page.getByRole('dialog', { name: 'Refund payment' });
    expect(await form.getByLabel('Amount (BRL)').inputValue()).toBe('30.00');
    await form.getByLabel('Amount (BRL)').fill('10');
    await form.getByRole('button', { name: 'Review refund' }).click();
    let confirm = page.getByRole('dialog', { name: /^Refund R\$/ });
    expect(await confirm.innerText()).toMatch(new RegExp(`${money(1000).source} of this ${money(3000).source} payment goes back to the customer`));
    await confirm.getByRole('button', { name: money(1000) }).click();
    const first = page.getByTestId('refund-entry').first();
    await first.getByText('pending', { exact: true }).waitFor();
    await first.getByRole('button', { name: 'Settle refund' }).click();
    await first.getByText('succeeded', { exact: true }).waitFor();
    await page.getByText('refund.succeeded', { exact: true }).waitFor();

    // The rest, prefilled; then nothing is refundable and the button is gone.
    await refund.click();
    expect(await form.getByLabel('Amount (BRL)').inputValue()).toBe('20.00');
    await form.getByRole('button', { name: 'Review refund' }).click();
    confirm = page.getByRole('dialog', { name: /^Refund R\$/ });
    await confirm.getByRole('button', { name: money(2000) }).click();
    await refund.waitFor({ state: 'detached' });
    const second = page.getByTestId('refund-entry').nth(1);
    await second.getByText('pending', { exact: true }).waitFor();
    await second.getByRole('button', { name: 'Settle refund' }).click();
    await second.getByText('succeeded', { exact: true }).waitFor();
    await expect.poll(() => page.getByTestId('refund-summary').innerText()).toMatch(new RegExp(`Refunded ${money(3000).source} of ${money(3000).source} · nothing left to refund`));
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/refund-demo.png', fullPage: true });
    expect(problems).toEqual([]);
  });
});
