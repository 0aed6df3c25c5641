/**
 * Mail-based flows in a real browser (Debian's Chromium, as a person uses
 * them), with mail in the embedded demo's outbox (PGlite) or at a real SMTP
 * server (PostgreSQL, where a service must have one to invite): a
 * forgotten password is reset through the mailed link; an invitation to an
 * address that already has an account is accepted logged in as that account.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { buildDashboard, chromiumAvailable, launchChromium, PASSWORD, uniqueEmail, watchPage } from '../support/browser';
import { startPeopleMail, type PeopleMail } from '../support/people-mail';

let service: TestService;
let mail: PeopleMail;
let tenant: TestTenant;
let browser: Browser;
let lastPage: Page | null = null;

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && lastPage) console.error(`the page read:\n${await lastPage.locator('body').innerText().catch(() => '(no page)')}`);
});

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  mail = await startPeopleMail();
  service = await startTestService({ env: mail.env });
  tenant = await createTenant(service);
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await mail?.close();
});

async function freshPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  page.setDefaultTimeout(10_000);
  lastPage = page;
  return { page, problems: watchPage(page, service.url) };
}

describe.skipIf(!chromiumAvailable)('people and their mail, in the dashboard', () => {
  it('forgot password: asks for a link, opens it from the mail, sets a new password and logs in with it', async () => {
    const email = uniqueEmail('forgetful');
    await service.admin.users.create({ email, password: PASSWORD });
    const { page, problems } = await freshPage();
    await page.goto(`${service.url}/dashboard/`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    // The page is loaded on demand: until it shows, the E-mail field on screen is still the log-in page's.
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByRole('textbox', { name: /^E-mail/ }).fill(email);
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await page.getByRole('status').filter({ hasText: 'If an account uses that address' }).waitFor();
    await page.screenshot({ path: '/tmp/e2e-forgot-password.png' });

    const link = await mail.link(service, email, 'reset-password');
    await page.goto(link);
    await page.getByRole('textbox', { name: /^New password/ }).fill('my brand new passphrase');
    await page.getByRole('textbox', { name: /^Repeat the password/ }).fill('my brand new passphrase');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
    expect(page.url()).not.toContain('#');
    await page.screenshot({ path: '/tmp/e2e-reset-password.png' });

    await page.getByRole('link', { name: 'Go to log in' }).click();
    await page.getByRole('textbox', { name: /^E-mail/ }).fill(email);
    await page.getByRole('textbox', { name: /^Password/ }).fill('my brand new passphrase');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
  });

  it('an invitation to an existing account: asked to log in first, then joins with one click', async () => {
    const email = uniqueEmail('existing');
    await service.admin.users.create({ email, password: PASSWORD });
    const invited = await service.admin.members.invite({ organizationId: tenant.organizationId, email, role: 'developer' });
    const link = await mail.link(service, email, 'invitation');
    expect(invited.invitationUrl).toBe(mail.showsLink ? link : null);

    const { page, problems } = await freshPage();
    await page.goto(link);
    await page.getByRole('status').filter({ hasText: 'already has an account' }).waitFor();
    expect(await page.getByRole('button', { name: /^Join/ }).count()).toBe(0);
    await page.screenshot({ path: '/tmp/e2e-invitation-log-in-first.png' });

    // Logged in as that address (a member of no organization yet), the same link offers to join.
    await page.goto(`${service.url}/dashboard/`);
    await page.getByRole('textbox', { name: /^E-mail/ }).fill(email);
    await page.getByRole('textbox', { name: /^Password/ }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor({ state: 'detached' });
    await page.goto('about:blank');
    await page.goto(link);
    await page.screenshot({ path: '/tmp/e2e-invitation-join.png' });
    await page.getByRole('button', { name: 'Join Test organization' }).click();
    await page.getByRole('navigation', { name: 'Sections' }).waitFor({ timeout: 15_000 });
    const members = await service.admin.members.list({ organizationId: tenant.organizationId });
    expect(members.members).toEqual([expect.objectContaining({ email: email.toLowerCase(), role: 'developer' })]);
    expect(problems).toEqual([]);
  });
});
