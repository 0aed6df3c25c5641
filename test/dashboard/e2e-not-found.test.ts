/**
 * An address that names no page, in Debian's Chromium against the service
 * serving the production build: a logged-in person sees "Page not found" in
 * the layout, with the address as asked (its direction controls shown, not
 * applied) and a link home; under a known environment the navigation stays
 * that environment's. An environment the person cannot open still goes to
 * their start page with the "not available" notification.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, watchPage } from '../support/browser';

let world: SandboxedService;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  world = await startSandboxedService({ routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(20_000);
  problems = watchPage(page, world.service.url);
  await logIn(page, world.service.url, await createMember(world.service, world.tenant.organizationId, 'viewer'), 60_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await world?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

const address = () => page.getByTestId('not-found-address').innerText();

describe.skipIf(!chromiumAvailable)('an address that names no page', () => {
  it('says "Page not found" in the layout, shows the address, and links home', async () => {
    await page.goto(`${world.service.url}/dashboard/no/such/page?from=mail`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await address()).toBe('/dashboard/no/such/page?from=mail');
    // The address is kept (no silent jump), inside the layout (its navigation and account menu).
    expect(new URL(page.url()).pathname).toBe('/dashboard/no/such/page');
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    await page.screenshot({ path: '/tmp/not-found.png' });
    await page.getByRole('link', { name: 'Go to the home page' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it('under a known environment, keeps its navigation and links to its home', async () => {
    const environmentId = world.tenant.environmentId;
    await page.goto(`${world.service.url}/dashboard/e/${environmentId}/paymnets`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await address()).toBe(`/dashboard/e/${environmentId}/paymnets`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Payments', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Go to the home page' }).click();
    await page.waitForURL(`${world.service.url}/dashboard/e/${environmentId}`);
    await page.getByRole('heading', { name: 'Home' }).waitFor();
  }, 60_000);

  it('shows a direction control in the address instead of applying it', async () => {
    await page.goto(`${world.service.url}/dashboard/invoice-%E2%80%AEfdp.exe`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await address()).toBe('/dashboard/invoice-U+202Efdp.exe');
    await page.screenshot({ path: '/tmp/not-found-bidi.png' });
  }, 60_000);

  it('the log-in page\'s address, once logged in, is the start page, not "not found"', async () => {
    await page.goto(`${world.service.url}/dashboard/login`);
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Page not found' }).count()).toBe(0);
  }, 60_000);

  it("an environment the person cannot open still says it is not available and lands on their start page", async () => {
    await page.goto(`${world.service.url}/dashboard/e/env_someone_elses/payments`);
    await page.getByText('That page is not available to this account').waitFor();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Page not found' }).count()).toBe(0);
    expect(problems).toEqual([]);
  }, 60_000);
});
