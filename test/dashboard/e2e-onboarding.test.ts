/**
 * A platform operator onboards a merchant from the dashboard, in a real
 * browser: creates the organization, its project (with sandbox and
 * production), invites its first owner; the owner opens the one-time link in
 * another browser, chooses a password and lands in the new organization's
 * sandbox, as its owner, seeing nothing of any other organization.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';
import { invitationAfterInvite, startPeopleMail, type PeopleMail } from '../support/people-mail';
import { createTenant } from '../support/tenant';
import { buildDashboard, chromiumAvailable, launchChromium, logIn, PASSWORD, uniqueEmail, watchPage } from '../support/browser';

let service: TestService;
let mail: PeopleMail;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  mail = await startPeopleMail();
  service = await startTestService({ env: mail.env });
  await createTenant(service); // an existing merchant, which the new owner must never see
  const operator = uniqueEmail('operator');
  await service.admin.users.create({ email: operator, password: PASSWORD, platformOperator: true });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.setDefaultTimeout(10_000);
  problems = watchPage(page, service.url);
  await logIn(page, service.url, operator);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await mail?.close();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

describe.skipIf(!chromiumAvailable)('onboarding a merchant from the dashboard', () => {
  it('operator: organization, project with both environments, an invitation for its owner; the owner joins through the link', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Organizations (operator)', exact: true }).click();
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Padaria Central');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByRole('cell', { name: 'Padaria Central', exact: true }).waitFor();

    await page.getByRole('button', { name: 'New project of Padaria Central' }).click();
    await page.getByRole('dialog').getByLabel('Project name').fill('Loja online');
    await page.getByRole('dialog').getByRole('button', { name: 'Create project' }).click();
    await page.getByText('Loja online created, with its sandbox and production environments.').waitFor();

    const owner = uniqueEmail('owner');
    await page.getByRole('button', { name: 'Invite an owner of Padaria Central' }).click();
    await page.getByRole('dialog').getByLabel('E-mail').fill(owner);
    await page.getByRole('dialog').getByRole('button', { name: 'Invite owner' }).click();
    // The embedded demo shows the link once to whoever invited; elsewhere only the invited address receives it.
    const link = await invitationAfterInvite(page, mail, service, owner);
    expect(link).toMatch(new RegExp(`^${service.url}/dashboard/invitation#.{20,}$`));
    // In the demo without SMTP the mail itself waits in the outbox below.
    if (mail.showsLink) await page.getByText('Outbox (mail is not sent: no SMTP_URL)').waitFor();
    expect(problems).toEqual([]);

    // The owner, in a browser of their own.
    const theirs = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const ownerPage = await theirs.newPage();
    ownerPage.setDefaultTimeout(10_000);
    const ownerProblems = watchPage(ownerPage, service.url);
    await ownerPage.goto(link);
    await ownerPage.getByRole('heading', { name: 'Accept your invitation' }).waitFor().catch(async (error: unknown) => {
      throw new Error(`no invitation page; it reads: ${await ownerPage.locator('body').innerText()}`, { cause: error });
    });
    await ownerPage.getByRole('textbox', { name: /^Password/ }).fill('short');
    await ownerPage.getByRole('button', { name: 'Join' }).click();
    await ownerPage.getByText('must be at least 12 characters').waitFor();
    await ownerPage.getByRole('textbox', { name: /^Password/ }).fill(PASSWORD);
    await ownerPage.getByRole('textbox', { name: /^Repeat the password/ }).fill(PASSWORD);
    await ownerPage.getByRole('button', { name: 'Join' }).click();
    await ownerPage.getByRole('heading', { name: 'Home' }).waitFor({ timeout: 15_000 });
    await ownerPage.getByTestId('sandbox-banner').waitFor();
    // The fragment with the token is gone from the address.
    expect(ownerPage.url()).not.toContain('#');

    // They own the new organization and see no other.
    const organizations = await ownerPage.evaluate(async () => {
      const session = (await (await fetch('/internal/trpc/auth.session')).json()) as { result: { data: { memberships: { organizationName: string; role: string }[] } } };
      return session.result.data.memberships;
    });
    expect(organizations).toEqual([expect.objectContaining({ organizationName: 'Padaria Central', role: 'owner' })]);

    // Their own password, changed from their sessions page: a wrong current one is refused with the server's message.
    await ownerPage.goto(`${service.url}/dashboard/account/sessions`);
    await ownerPage.getByRole('heading', { name: 'Your sessions' }).waitFor();
    await ownerPage.getByRole('textbox', { name: /^Current password/ }).fill('not the password at all');
    await ownerPage.getByRole('textbox', { name: /^New password/ }).fill('a brand new passphrase');
    await ownerPage.getByRole('textbox', { name: /^Repeat the new password/ }).fill('a brand new passphrase');
    await ownerPage.getByRole('button', { name: 'Change password' }).click();
    await ownerPage.getByText('The current password is wrong.').waitFor();
    await ownerPage.getByRole('textbox', { name: /^Current password/ }).fill(PASSWORD);
    await ownerPage.getByRole('button', { name: 'Change password' }).click();
    await ownerPage.getByText('Password changed; your other sessions have ended.').waitFor();
    const login = await fetch(`${service.url}/internal/trpc/auth.login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: owner, password: 'a brand new passphrase' }) });
    expect(login.status).toBe(200);

    // The link worked once.
    const again = await (await browser.newContext()).newPage();
    await again.goto(link);
    await again.getByRole('alert').filter({ hasText: 'This invitation link is not valid any more' }).waitFor();
    expect(await again.getByRole('button', { name: 'Join' }).count()).toBe(0);
    expect(ownerProblems).toEqual([]);
    await theirs.close();
  });
});
