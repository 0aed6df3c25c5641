/**
 * Who sees what in the dashboard, in a real browser: a viewer sees the data
 * but no button that changes it, and a call forced from their page is
 * refused with 403; a member of another organization sees nothing of this
 * one, not even by typing its address, and a forced call is answered as if
 * the data did not exist (404).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import type { TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, watchPage } from '../support/browser';

let world: SandboxedService;
let service: TestService;
let browser: Browser;
let tenant: TestTenant;
let other: TestTenant;
let paymentId: string;
const problems: string[] = [];

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  world = await startSandboxedService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' }, routes: { PIX: 'gateway_a' } });
  ({ service, tenant } = world);
  other = await createTenant(service);
  await service.admin.organizations.setBilling({ organizationId: tenant.organizationId, monthlyTxLimit: 1000 });
  const payment = await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment({ externalId: 'seen-by-viewer' }) });
  expect(payment.status).toBe(201);
  paymentId = payment.body.id;
  await service.admin.webhooks.createEndpoint({ environmentId: tenant.environmentId, url: 'http://127.0.0.1:9/viewer-hooks' });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await world?.stop();
});

/** A call made from the page itself, with its session cookie and CSRF token, as a tampering user would. */
function forcedCall(page: Page, procedure: string, input: unknown) {
  return page.evaluate(
    async ({ procedure, input }) => {
      const session = (await (await fetch('/internal/trpc/auth.session')).json()) as { result: { data: { csrfToken: string } } };
      const csrf = session.result.data.csrfToken;
      const response = await fetch(`/internal/trpc/${procedure}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify(input),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    { procedure, input },
  );
}

async function newPage(email: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.setDefaultTimeout(10_000);
  problems.push(...watchPage(page, service.url));
  await logIn(page, service.url, email);
  return page;
}

describe.skipIf(!chromiumAvailable)('roles in the dashboard', () => {
  it('a viewer reads everything and can change nothing; a forced change is 403', async () => {
    const page = await newPage(await createMember(service, tenant.organizationId, 'viewer'));
    const base = `${service.url}/dashboard/e/${tenant.environmentId}`;

    await page.goto(`${base}/payments/${paymentId}`);
    await page.getByText('seen-by-viewer', { exact: true }).waitFor(); // the externalId itself; event payloads carry it too
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await expect(page.getByText('Simulate (sandbox)').count()).resolves.toBe(0);

    await page.goto(`${base}/keys`);
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    await expect(page.getByRole('button', { name: 'Create key' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Revoke' }).count()).resolves.toBe(0);

    await page.goto(`${base}/webhooks`);
    await page.getByText('http://127.0.0.1:9/viewer-hooks').waitFor();
    await expect(page.getByRole('button', { name: 'Add endpoint' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Rotate secret' }).count()).resolves.toBe(0);
    await expect(page.getByRole('switch').first().isDisabled()).resolves.toBe(true);

    await page.goto(`${base}/organization`);
    await page.getByRole('table', { name: 'Members' }).waitFor();
    await page.getByText('of 1000 allowed').waitFor();
    await expect(page.getByRole('button', { name: 'Invite' }).count()).resolves.toBe(0);

    const forced = await forcedCall(page, 'apiKeys.create', { environmentId: tenant.environmentId, name: 'sneaky' });
    expect(forced.status).toBe(403);
    expect(forced.body).toMatchObject({ error: 'forbidden' });
    expect(Object.keys(forced.body).sort()).toEqual(['error', 'message']);
    await expect(service.admin.apiKeys.list({ environmentId: tenant.environmentId })).resolves.toHaveLength(1);
    await page.close();
  });

  it("a member of another organization sees nothing of this one, even by its address; a forced read is 404", async () => {
    const page = await newPage(await createMember(service, other.organizationId, 'owner', 'outsider'));
    // The switcher offers their own organization only.
    expect(page.url()).toBe(`${service.url}/dashboard/e/${other.environmentId}`);
    await page.getByRole('combobox', { name: 'Project' }).click();
    await expect(page.getByRole('option').count()).resolves.toBe(1);
    await page.keyboard.press('Escape');

    // Typing the other organization's address lands back on their own home.
    await page.goto(`${service.url}/dashboard/e/${tenant.environmentId}/payments/${paymentId}`);
    await page.waitForURL(`${service.url}/dashboard/e/${other.environmentId}`);
    await expect(page.content()).resolves.not.toContain('seen-by-viewer');

    // Reads are GETs (tRPC queries), with the session's CSRF token like the app's own.
    const read = await page.evaluate(async ({ environmentId, paymentId }) => {
      const session = (await (await fetch('/internal/trpc/auth.session')).json()) as { result: { data: { csrfToken: string } } };
      const headers = { 'x-csrf-token': session.result.data.csrfToken };
      const get = async (procedure: string, input: unknown) => {
        const response = await fetch(`/internal/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers });
        return { status: response.status, body: await response.json() };
      };
      return { list: await get('payments.list', { environmentId }), one: await get('payments.get', { paymentId }) };
    }, { environmentId: tenant.environmentId, paymentId });
    expect(read.list.status).toBe(404);
    expect(read.list.body).toMatchObject({ error: 'not_found' });
    expect(read.one.status).toBe(404);
    expect(read.one.body).toMatchObject({ error: 'not_found' });
    await page.close();
  });

  it('loaded nothing from elsewhere and broke no policy', () => {
    expect(problems).toEqual([]);
  });
});
