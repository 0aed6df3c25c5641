/**
 * The main flows with the keyboard alone, in Chromium against the production
 * build: log in, skip to the content, reach the payments through the
 * navigation with Tab, open a payment, open "New test payment", close it with
 * Escape (focus back on its button), submit it with Enter and land on the new
 * payment. Every stop of Tab shows where the focus is, and after a page
 * change the focus is on the page's content, not lost on the document.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, PASSWORD, settled, watchPage } from '../support/browser';

let world: SandboxedService;
let browser: Browser;
let page: Page;
let problems: string[];
let email: string;
let base: string;
let paymentId: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  world = await startSandboxedService({ simulatorsInService: true, routes: { PIX: 'gateway_a', CARD: 'gateway_b' } });
  base = `${world.service.url}/dashboard/e/${world.tenant.environmentId}`;
  const created = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment({ externalId: 'keyboard-order' }) });
  expect(created.status).toBe(201);
  paymentId = created.body.id;
  email = await createMember(world.service, world.tenant.organizationId, 'developer');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.setDefaultTimeout(10_000);
  problems = watchPage(page, world.service.url);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await world?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`focus was on: ${JSON.stringify(await focused())}\nthe page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

interface Focused {
  tag: string;
  role: string | null;
  name: string;
  id: string;
  inDialog: boolean;
  inMain: boolean;
  inNavigation: boolean;
  /** An outline, a ring (box-shadow) or, for a text field, its border in the focus colour. */
  visible: boolean;
  onScreen: boolean;
}

/** What has the focus, and whether a sighted keyboard user can see that it does (after the focus style's transition). */
async function focused(): Promise<Focused> {
  await settled(page);
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { activeElement: any } }).document;
    const computed = (globalThis as unknown as { getComputedStyle: (e: unknown) => Record<string, string | undefined> }).getComputedStyle;
    const el = doc.activeElement;
    // A radio or switch hides its input and draws the focus on what follows it (its label, its track).
    const drawn = [el, el.nextElementSibling, ...(el.labels ?? [])].filter(Boolean);
    const shows = (e: any) => {
      const style = computed(e);
      const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth ?? '0') > 0;
      const ring = (style.boxShadow ?? 'none') !== 'none';
      // Mantine's text fields show focus by their border; the resting border is gray 4 (rgb(206, 212, 218)).
      const border = e.tagName === 'INPUT' && e === el && style.borderColor !== 'rgb(206, 212, 218)';
      return outline || ring || border;
    };
    const box = drawn.map((e: any) => e.getBoundingClientRect()).find((b: any) => b.width > 1 && b.height > 1) ?? el.getBoundingClientRect();
    return {
      tag: el.tagName,
      role: el.getAttribute('role'),
      name: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 80),
      id: el.id,
      inDialog: el.closest('[role="dialog"]') !== null,
      inMain: el.closest('main') !== null,
      inNavigation: el.closest('nav') !== null,
      visible: drawn.some(shows),
      onScreen: box.width > 1 && box.height > 1 && box.bottom > 0 && box.right > 0 && box.top < 860 && box.left < 1280,
    };
  });
}

/** Tab (or Shift+Tab) until `wanted` holds, each stop visibly focused; fails after `max` presses. */
async function tabTo(wanted: (f: Focused) => boolean, what: string, max = 40, key = 'Tab'): Promise<Focused> {
  for (let presses = 0; presses < max; presses++) {
    await page.keyboard.press(key);
    const now = await focused();
    expect(now.visible, `focus visible on ${JSON.stringify(now)}`).toBe(true);
    expect(now.onScreen, `focus on screen: ${JSON.stringify(now)}`).toBe(true);
    if (wanted(now)) return now;
  }
  throw new Error(`${what}: not reached within ${max} presses of ${key}`);
}

describe.skipIf(!chromiumAvailable)('the dashboard with the keyboard only', () => {
  it('logs in: the e-mail field has the focus, Tab reaches the password, Enter submits', async () => {
    await page.goto(`${world.service.url}/dashboard/`);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await focused()).toMatchObject({ tag: 'INPUT', visible: true });
    await page.keyboard.type(email);
    await tabTo((f) => f.tag === 'INPUT' && f.id !== '' && f.name === '', 'the password field', 2);
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Home' }).waitFor({ timeout: 20_000 });
  });

  it('"Skip to content" is the first stop of Tab, shows itself, and moves the focus to the page', async () => {
    const first = await tabTo(() => true, 'the first stop', 1);
    expect(first).toMatchObject({ tag: 'A', name: 'Skip to content', onScreen: true });
    await page.keyboard.press('Enter');
    expect(await focused()).toMatchObject({ tag: 'MAIN' });
    expect(page.url()).toBe(base);
    // From the content, the next stop is in the page, not back in the header.
    expect((await tabTo(() => true, 'the next stop', 1)).inMain).toBe(true);
  });

  it('reaches the payments through the navigation with Tab and opens one with Enter', async () => {
    await page.keyboard.press('Shift+Tab');
    await tabTo((f) => f.inNavigation && f.name === 'Payments', 'the Payments link', 40, 'Shift+Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('table', { name: 'Payments' }).waitFor();
    expect(page.url()).toBe(`${base}/payments`);
    // A new page: the focus is on its content, ready to go on from there.
    expect((await focused()).tag).toBe('MAIN');
    await tabTo((f) => f.name === paymentId, 'the payment in the list');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(page.url()).toBe(`${base}/payments/${paymentId}`);
    expect((await focused()).tag).toBe('MAIN');
    await page.goBack();
    await page.getByRole('table', { name: 'Payments' }).waitFor();
  });

  it('"New test payment": opens with Enter, Escape closes it and gives the focus back to its button', async () => {
    await page.locator('main').focus();
    await tabTo((f) => f.name === 'New test payment', 'the New test payment button');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByLabel('External id').waitFor();
    expect((await focused()).inDialog).toBe(true);
    // Tab stays in the dialog.
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect((await focused()).inDialog).toBe(true);
    }
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await expect.poll(async () => (await focused()).name).toBe('New test payment');
  });

  it('"New test payment": filled and submitted with the keyboard, it lands on the new payment', async () => {
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('External id').waitFor();
    await tabTo((f) => f.inDialog && f.tag === 'INPUT' && f.name === '' && f.id !== '' && f.role === null, 'a field', 6);
    await tabTo((f) => f.name === 'Create test payment', 'the submit button', 20);
    await page.keyboard.press('Enter');
    await page.getByText('Gateway reference', { exact: true }).waitFor();
    expect(page.url()).toMatch(new RegExp(`^${base}/payments/pay_\\w+$`));
    expect(page.url()).not.toContain(paymentId);
    await dialog.waitFor({ state: 'hidden' });
    // Not lost on the document: on the new payment's page (or the notification saying it was made).
    await expect.poll(async () => (await focused()).tag).not.toBe('BODY');
    await page.screenshot({ path: '/tmp/e2e-keyboard-new-payment.png' });
  });

  it('loaded nothing from elsewhere and broke no policy', () => {
    expect(problems).toEqual([]);
  });
});
