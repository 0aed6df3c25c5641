/**
 * The audit log in a real browser (Debian's Chromium) against a real service
 * serving the production build: in a PRODUCTION environment an owner turns
 * the Pix routing rule off (the page asks first and waits for the project's
 * name), then the organization's Audit log page shows the entry with the
 * owner's e-mail, the action, the address, and before/after with the changed
 * fields marked; an operator finds it in the log of every organization. axe
 * scans both pages. Screenshots land in /tmp.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axeScan, blocking, describeViolations } from '../support/axe';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, PASSWORD, uniqueEmail, watchPage } from '../support/browser';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
let browser: Browser;
let page: Page;
let problems: string[] = [];
let owner: string;
let operator: string;
let productionId: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  service = await startTestService();
  tenant = await createTenant(service);
  productionId = (await service.admin.environments.create({ projectId: tenant.projectId, kind: 'production' })).id;
  await service.admin.routing.set({ environmentId: productionId, method: 'PIX', gateway: 'gateway_a' });
  owner = await createMember(service, tenant.organizationId, 'owner');
  operator = uniqueEmail('operator');
  await service.admin.users.create({ email: operator, password: PASSWORD, platformOperator: true });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

async function expectAccessible(view: string) {
  // axeScan waits for the transitions to end.
  expect(describeViolations(view, blocking(await axeScan(page)))).toEqual([]);
}

async function openAs(email: string, path: string) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  page.setDefaultTimeout(30_000); // two cores shared with other test files
  problems = watchPage(page, service.url);
  await logIn(page, service.url, email, 30_000);
  await page.goto(`${service.url}/dashboard/${path}`);
}

describe.skipIf(!chromiumAvailable)('the audit log on the dashboard', { timeout: 180_000 }, () => {
  it('an owner turns the Pix rule off in production, after confirming; the audit log shows who, what and before/after', async () => {
    await openAs(owner, `e/${productionId}/gateways`);
    const pix = page.getByRole('region', { name: 'Pix', exact: true });
    await pix.getByRole('button', { name: 'Remove rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the Pix rule in production?' });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Remove rule' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type Test project to confirm').fill('Test project');
    await confirm.click();
    await page.getByText('Pix rule removed').waitFor();
    expect(await service.admin.routing.list({ environmentId: productionId })).toEqual([]);

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: /^Audit log of / }).waitFor();
    const row = page.getByTestId('audit-row').filter({ hasText: 'routing.rule.removed' });
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain(owner);
    expect(text).toContain('routing rule');
    expect(text).toContain('PIX');
    expect(text).toMatch(/127\.0\.0\.1|::1|::ffff:127\.0\.0\.1/);
    // The earlier change (the rule set up by the test, in-process) is the system's.
    await page.getByTestId('audit-row').filter({ hasText: 'routing.rule.created' }).getByText('system').waitFor();

    await row.getByRole('button', { name: 'Show changes' }).click();
    const diff = page.getByRole('table', { name: 'Before and after: routing.rule.removed' });
    await diff.waitFor();
    const method = diff.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^method/ }) });
    expect(await method.innerText()).toMatch(/PIX\s+—/);
    expect(await diff.locator('[data-changed]').count()).toBeGreaterThan(2);
    expect(await diff.innerText()).toContain('(removed)');
    await page.screenshot({ path: '/tmp/audit-owner.png', fullPage: true });
    await expectAccessible('audit log with an entry open');

    // Filtering by another action prefix leaves it out.
    await page.getByLabel('Action').fill('webhook_endpoint.');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No changes recorded match these filters.').waitFor();
    expect(problems).toEqual([]);
  });

  it('a developer is told only owners read it', async () => {
    const developer = await createMember(service, tenant.organizationId, 'developer');
    await openAs(developer, `e/${productionId}/audit`);
    await page.getByText("Only the organization's owners read its audit log.").waitFor();
    expect(await page.getByTestId('audit-row').count()).toBe(0);
  });

  it('an operator reads it among every organization\'s changes', async () => {
    await openAs(operator, 'operator/audit');
    await page.getByRole('heading', { name: 'Audit log (operator)' }).waitFor();
    const row = page.getByTestId('audit-row').filter({ hasText: 'routing.rule.removed' });
    await row.waitFor();
    expect(await row.innerText()).toContain('Test organization');
    await page.screenshot({ path: '/tmp/audit-operator.png', fullPage: true });
    await expectAccessible('operator audit log');
    expect(problems).toEqual([]);
  });
});
