/**
 * The typed gateway form in a real browser (Debian's Chromium) against a real
 * service serving the production build, with a gateway_b simulator the
 * service plays this sandbox with: a developer configures gateway_b through
 * fields named and labelled from its description, picks the simulator among
 * the offered base URLs (no free URL), is told on the page which field is
 * wrong, saves after the confirmation, and a Pix then goes through gateway_b.
 * Opened again, the form says each secret is set and shows none of them;
 * saved with the secrets left blank, the account keeps them and still works.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewaySimulators, type GatewaySimulator } from '../../server/sandbox/simulators';
import { inProcessSandbox } from '../../server/sandbox/in-process';
import { axeScan, blocking, describeViolations } from '../support/axe';
import { call, validPayment } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, settled, watchPage } from '../support/browser';

const SHOTS = '/tmp/gateway-forms-shots';

let service: TestService;
let tenant: TestTenant;
let simulator: GatewaySimulator;
let browser: Browser;
let page: Page;
let problems: string[];
const credentials = { apiKey: `key_sim_b_${randomBytes(8).toString('hex')}`, webhookToken: `token_b_${randomBytes(12).toString('hex')}` };

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  service = await startTestService();
  tenant = await createTenant(service);
  simulator = await gatewaySimulators.gateway_b({ credentials });
  service.services.sandbox = inProcessSandbox({ gateway_b: simulator });
  await service.admin.routing.set({ environmentId: tenant.environmentId, method: 'PIX', gateway: 'gateway_b' });
  const developer = await createMember(service, tenant.organizationId, 'developer');
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
  page.setDefaultTimeout(20_000); // two cores shared with other test files
  problems = watchPage(page, service.url);
  await logIn(page, service.url, developer, 30_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (service) service.services.sandbox = null;
  await simulator?.close();
  await service?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) await page.screenshot({ path: `${SHOTS}/failed.png` }).catch(() => undefined);
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

const card = () => page.locator('.mantine-Card-root').filter({ has: page.getByRole('heading', { name: 'gateway_b', exact: true }) });
const account = async () => (await service.admin.gateways.list({ environmentId: tenant.environmentId })).find((a) => a.gateway === 'gateway_b');
const pix = () => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment() });

describe.skipIf(!chromiumAvailable)('the typed gateway form', { timeout: 180_000 }, () => {
  it('configures gateway_b from its labelled fields and the offered simulator URL; a short token is named on the page', async () => {
    await page.goto(`${service.url}/dashboard/e/${tenant.environmentId}/gateways`);
    await card().getByRole('button', { name: 'Configure' }).click();
    const dialog = page.getByRole('dialog', { name: 'Configure gateway_b' });
    await dialog.waitFor();
    // The base URL is chosen, not typed: the simulator that plays this sandbox comes first.
    expect(await dialog.getByRole('textbox', { name: 'Base URL' }).or(dialog.getByRole('combobox', { name: 'Base URL' })).first().inputValue()).toBe(`Local simulator (this sandbox): ${simulator.url}`);
    expect(await dialog.getByText('Only a platform operator points it elsewhere').count()).toBe(1);
    // The gateway's own fields, labelled and explained: nothing to know by heart.
    await dialog.getByLabel('API key').fill(credentials.apiKey);
    await dialog.getByText("gateway_b's API key, sent as the user of HTTP Basic on every call.", { exact: false }).waitFor();
    await dialog.getByLabel('Webhook token').fill('too-short');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Webhook token must be at least 16 characters').waitFor();
    expect(await page.getByRole('dialog', { name: 'Configure gateway_b?' }).count()).toBe(0);
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/gateway-form-error.png` });

    await dialog.getByLabel('Webhook token').fill(credentials.webhookToken);
    await dialog.getByRole('button', { name: 'Save' }).click();
    const confirmation = page.getByRole('dialog', { name: 'Configure gateway_b?' });
    await confirmation.getByRole('button', { name: 'Save' }).click();
    await page.getByText('gateway_b configured.').waitFor();
    expect(await account()).toMatchObject({ baseUrl: simulator.url, enabled: true, credentialFields: ['apiKey', 'webhookToken'] });
    await card().getByText('Enabled').waitFor();

    const payment = await pix();
    expect(payment.status).toBe(201);
    expect(payment.body).toMatchObject({ gateway: 'gateway_b', status: 'pending' });
    expect(problems).toEqual([]);
  });

  it('opened again, each secret says it is set and none is on the page; left blank, they are kept', async () => {
    const before = (await account())?.updatedAt;
    // The first save's notice closes by itself: gone, the saved notice scanned below is the only one on the page.
    await page.getByText('gateway_b configured.').waitFor({ state: 'detached', timeout: 15_000 });
    await card().getByRole('button', { name: 'Replace configuration' }).click();
    const dialog = page.getByRole('dialog', { name: 'Configure gateway_b' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('API key').inputValue()).toBe('');
    expect(await dialog.getByLabel('Webhook token').getAttribute('placeholder')).toBe('Leave blank to keep; type to replace');
    expect(await dialog.getByText('set', { exact: true }).count()).toBe(2);
    expect(await page.content()).not.toContain(credentials.apiKey);
    expect(await page.content()).not.toContain(credentials.webhookToken);
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/gateway-form-set.png` });
    // The form passes axe-core (no critical or serious violation): labels with their "set" badge, descriptions, the base URL select.
    expect(describeViolations('gateway form', blocking(await axeScan(page)))).toEqual([]);

    await dialog.getByRole('button', { name: 'Save' }).click();
    const confirmation = page.getByRole('dialog', { name: "Replace gateway_b's configuration?" });
    expect(await confirmation.innerText()).toContain('fields left blank keep their stored values');
    await confirmation.getByRole('button', { name: 'Replace configuration' }).click();
    // Saved when the account changed and the form closed.
    await expect.poll(async () => (await account())?.updatedAt, { timeout: 20_000 }).not.toBe(before);
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('gateway_b configured.').first().waitFor();
    // The notice's text reads too (the theme's dimmed colour, not Mantine's gray 6 at 3.3:1).
    expect(describeViolations('saved notice', blocking(await axeScan(page)))).toEqual([]);
    expect((await account())?.credentialFields).toEqual(['apiKey', 'webhookToken']);
    expect((await pix()).status).toBe(201);
    expect(problems).toEqual([]);
  });
});
