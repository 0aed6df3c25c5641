/**
 * The Reconciliation card in a real browser (Debian's Chromium) against a
 * real service serving the production build: a viewer of the environment
 * sees on its home page that nothing waits, then, once the gateway has lost a
 * payment (a sync answered 409) and a Pix waits for its first read, the lost
 * payment listed first with a link to its page; a platform operator sees the
 * same on the operator page, named by organization and project.
 * Background reconciliation is off in this service, so what the card shows
 * stays put while the test reads it.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Payment } from '../../server/domain/payments/payment';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, PASSWORD, uniqueEmail, watchPage } from '../support/browser';

let world: SandboxedService;
let browser: Browser;
let page: Page;
let problems: string[];
let viewer: string;
let operator: string;
let lostId: string;
let pendingId: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  world = await startSandboxedService({ env: { RECONCILIATION: 'false' }, routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
  viewer = await createMember(world.service, world.tenant.organizationId, 'viewer');
  operator = uniqueEmail('operator');
  await world.service.admin.users.create({ email: operator, password: PASSWORD, platformOperator: true });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await world?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

/** A fresh browser page logged in as someone, its problems collected. */
async function openAs(email: string): Promise<Page> {
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.setDefaultTimeout(10_000);
  problems = watchPage(page, world.service.url);
  await logIn(page, world.service.url, email);
  return page;
}

const card = () => page.getByRole('region', { name: 'Reconciliation' });
/** The card's rows as a person reads them, one line each. */
const rows = async () => (await card().getByRole('table', { name: 'Reconciliation items' }).getByRole('row').allInnerTexts()).slice(1).map((row) => row.replace(/\s+/g, ' ').trim());

describe.skipIf(!chromiumAvailable)('the Reconciliation card', () => {
  it('a viewer’s home page says nothing is waiting while no payment is unfinished', async () => {
    await openAs(viewer);
    await card().getByText('Nothing is waiting for a read, and no gateway has lost anything.').waitFor();
    await expect(card().getByRole('table').count()).resolves.toBe(0);
    await page.close();
  });

  it('a viewer sees the payment its gateway lost first, then the Pix waiting for its first read, and opens the lost one', async () => {
    const api = (path: string, body?: unknown) => call(world.service.url, 'POST', path, { key: world.tenant.apiKey, body });
    const lost = await api('/v1/payments', validPayment({ method: 'card' }));
    lostId = lost.body.id;
    await world.service.services.db.fork().nativeUpdate(Payment, { id: lostId }, { gatewayRef: 'pi_unknown_at_the_gateway' });
    expect((await api(`/v1/payments/${lostId}/sync`)).status).toBe(409);
    pendingId = (await api('/v1/payments', validPayment({ method: 'pix' }))).body.id;

    await openAs(viewer);
    await card().getByRole('link', { name: lostId }).waitFor();
    await expect.poll(async () => (await rows()).length, { timeout: 10_000 }).toBe(2);
    const [first, second] = await rows();
    expect(first).toMatch(new RegExp(`^Payment ${lostId} pending lost (now|\\d+ seconds? ago) never gateway_a$`, 'i'));
    expect(second).toMatch(new RegExp(`^Payment ${pendingId} pending in (\\d+ seconds|1 minute) never gateway_a$`, 'i'));
    // The counts: one waiting for a read, none overdue, one lost.
    await expect(card().getByText('Waiting for a read').locator('xpath=following-sibling::*[1]').innerText()).resolves.toBe('1');
    await expect(card().getByText('Overdue', { exact: true }).locator('xpath=following-sibling::*[1]').innerText()).resolves.toBe('0');
    await expect(card().getByText('Lost by the gateway').locator('xpath=following-sibling::*[1]').innerText()).resolves.toBe('1');

    await card().getByRole('link', { name: lostId }).click();
    await page.waitForURL(`${world.service.url}/dashboard/e/${world.tenant.environmentId}/payments/${lostId}`);
    await page.getByText('pi_unknown_at_the_gateway').first().waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a platform operator sees it on the operator page, across environments, named by organization and project', async () => {
    await openAs(operator);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Organizations (operator)', exact: true }).click();
    await card().getByRole('link', { name: lostId }).waitFor();
    await card().getByText('in every environment').waitFor();
    // The card asks again on its own: a read taken while it redraws finds no rows, so the first row is waited for.
    await expect.poll(async () => (await rows())[0], { timeout: 10_000 }).toMatch(new RegExp(`^Payment ${lostId} pending lost .* gateway_a Test organization / Test project · sandbox$`, 'i'));
    expect(problems).toEqual([]);
    await page.close();
  });
});
