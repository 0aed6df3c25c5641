/**
 * The API reference at /docs in a real browser: Debian's Chromium, driven by
 * playwright-core, opens the page of a running test service, waits until the
 * operations of the served document are rendered, and takes a screenshot.
 * Every request the page makes must stay on the service's own origin (the
 * service works without internet). Skipped only where /usr/bin/chromium is
 * missing (CI installs it: .ci/run).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settled } from '../support/browser';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`skipping the /docs browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`);

let service: TestService;
let browser: Browser | undefined;

beforeAll(async () => {
  service = await startTestService();
  if (available) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  }
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe('the API reference page', () => {
  it('is served with the bundle from the service itself, under a same-origin policy', async () => {
    const page = await call(service.url, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.text).not.toMatch(/https?:\/\//);
    const bundle = await fetch(`${service.url}/docs/scalar.js`);
    expect(bundle.status).toBe(200);
    expect(Number(bundle.headers.get('content-length'))).toBeGreaterThan(1_000_000);
  });

  it.skipIf(!available)('renders the operations of the served document in Chromium, fetching nothing from elsewhere', async () => {
    const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    const origin = new URL(service.url).origin;
    const foreign: string[] = [];
    const failures: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });
    page.on('pageerror', (error) => failures.push(error.message));
    // Anything that would leave the machine is refused, so the page must render without it.
    await page.route((url) => !url.href.startsWith(origin) && url.protocol.startsWith('http'), (route) => route.abort());

    await page.goto(`${service.url}/docs`);
    // The tags are listed from the served document; opening one shows its operations.
    await page.getByText('payments', { exact: true }).first().click({ timeout: 30_000 });
    const create = page.getByText('Create a Pix or card payment').first();
    await create.waitFor({ timeout: 10_000 });
    await create.click();
    await page.getByText('Find a payment by externalId').first().waitFor({ timeout: 10_000 });
    // Opening the tag and the operation may animate: the screenshot is taken once the transitions have ended.
    await settled(page);
    await expect(page.title()).resolves.toBe('Payments API reference');

    const dir = process.env.REFERENCE_SCREENSHOT_DIR ?? join(tmpdir(), 'payments-reference');
    mkdirSync(dir, { recursive: true });
    // The reference scrolls to the opened operation and draws its sections as they come into view: a shot taken
    // mid-scroll is nearly blank, so the painted page (a shot of more than 10 kB) is waited for.
    await expect.poll(async () => (await page.screenshot({ path: join(dir, 'reference-page.png') })).length, { timeout: 15_000 }).toBeGreaterThan(10_000);
    expect(foreign).toEqual([]);
    expect(failures).toEqual([]);
    await page.close();
  }, 60_000);
});
