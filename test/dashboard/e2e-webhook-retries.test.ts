/**
 * The endpoints page's automatic retries switch and health, in a real browser
 * (Debian's Chromium) against a real service serving the production build: a
 * developer turns retries on after a confirmation that names the effect (a
 * cancel changes nothing), and sees each endpoint's share of successful
 * attempts over 24 h and its oldest waiting delivery; a viewer sees the switch
 * but cannot move it. The retry schedule is one hour, so the delivery that
 * failed stays waiting while the test reads the page.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commitPaymentEvents, eventually, newPaymentId } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, settled, watchPage } from '../support/browser';
import { createEnvironment, startWebhookService, type WebhookTestService } from '../support/webhook-service';

const SCREENSHOT = 'test-results/endpoints-retries.png';
const CONFIRM_SCREENSHOT = 'test-results/endpoints-retries-confirm.png';

let service: WebhookTestService;
let receiver: Receiver;
let browser: Browser;
let page: Page;
let problems: string[];
let developer: string;
let viewer: string;
let environmentId: string;
let endpointId: string;
let url: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  service = await startWebhookService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '1h' } });
  receiver = await startReceiver();
  const scope = await createEnvironment(service);
  environmentId = scope.environmentId;
  developer = await createMember(service, scope.organizationId, 'developer');
  viewer = await createMember(service, scope.organizationId, 'viewer');
  url = receiver.url('/hooks');
  endpointId = (await service.admin.webhooks.createEndpoint({ environmentId, url })).id;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await service?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

async function openEndpointsAs(email: string): Promise<Page> {
  page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  page.setDefaultTimeout(10_000);
  problems = watchPage(page, service.url);
  await logIn(page, service.url, email);
  await page.goto(`${service.url}/dashboard/e/${environmentId}/webhooks`);
  await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
  return page;
}

const retriesSwitch = () => page.getByRole('switch', { name: `Automatic retries for ${url}` });

describe.skipIf(!chromiumAvailable)('automatic retries on the endpoints page', () => {
  it('a developer turns retries on after a confirmation naming the effect; a cancel changes nothing', async () => {
    await openEndpointsAs(developer);
    expect(await retriesSwitch().isChecked()).toBe(false);

    await retriesSwitch().click({ force: true });
    const dialog = page.getByRole('dialog', { name: 'Turn automatic retries on?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toMatch(/timeout, network error or a 5xx.*same body, timestamp and signature.*FAILED only after the last attempt.*4xx is never retried/s);
    mkdirSync('test-results', { recursive: true });
    await settled(page); // the dialog's opening transition
    await page.screenshot({ path: CONFIRM_SCREENSHOT });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await retriesSwitch().isChecked()).toBe(false);
    expect((await service.admin.webhooks.listEndpoints({ environmentId }))[0]!.retries).toBe(false);

    await retriesSwitch().click({ force: true });
    await page.getByRole('dialog', { name: 'Turn automatic retries on?' }).getByRole('button', { name: 'Turn retries on' }).click();
    await eventually(async () => (await service.admin.webhooks.listEndpoints({ environmentId }))[0]!.retries || undefined);
    await expect.poll(() => retriesSwitch().isChecked()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows the endpoint's success over 24 h and its oldest pending delivery", async () => {
    let n = 0;
    receiver.answer(() => (++n === 1 ? { status: 503 } : { status: 204 }));
    const paymentId = newPaymentId();
    for (const status of ['created', 'pending', 'paid']) await commitPaymentEvents(service, environmentId, paymentId, [status]);
    await eventually(async () => {
      const items = (await service.admin.webhooks.listDeliveries({ endpointId })).items;
      return items.filter((d) => d.status === 'SENT').length === 2 && items.some((d) => d.status === 'PENDING' && d.nextAttemptAt) ? items : undefined;
    });

    await openEndpointsAs(developer);
    const row = page.getByRole('row').filter({ hasText: url });
    await row.getByText('66% succeeded').waitFor();
    await row.getByText('of 3 attempts in 24 h').waitFor();
    await row.getByText(/^oldest pending: \d+ s$/).waitFor();
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a viewer sees the switch but cannot move it', async () => {
    await openEndpointsAs(viewer);
    expect(await retriesSwitch().isChecked()).toBe(true);
    expect(await retriesSwitch().isDisabled()).toBe(true);
    await page.close();
  });
});
