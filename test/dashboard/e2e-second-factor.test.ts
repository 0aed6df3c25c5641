/**
 * The second factor in Chromium: a user enrols on the Security page (the test
 * reads the key the page shows and computes codes with its own TOTP), saves
 * the recovery codes, logs out, and logging in asks for a code. An owner
 * requires it of the organization; a member without one is led to the
 * Security page instead of the data, enrols, and is asked for a code at the
 * next log-in. Axe checks the new pages; screenshots in /tmp.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, PASSWORD, settled, watchPage } from '../support/browser';
import { axeScan, blocking, describeViolations } from '../support/axe';
import { totp } from '../support/totp';

/** The service's clock runs ahead by whole steps when a test needs a code of a step not used yet (a used one is refused). */
let offset = 0;
const nextCode = (secret: string) => {
  offset += 30_000;
  return totp(secret, Date.now() + offset);
};

let service: TestService;
let tenant: TestTenant;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  service = await startTestService({ now: () => new Date(Date.now() + offset) });
  tenant = await createTenant(service);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function newPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(20_000);
  problems.push(...watchPage(page, service.url));
  return page;
}

async function passwordStep(page: Page, email: string) {
  await page.goto(`${service.url}/dashboard/`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
}

async function expectAccessible(page: Page, view: string) {
  // axeScan waits for the transitions to end.
  expect(describeViolations(view, blocking(await axeScan(page)))).toEqual([]);
}

/**
 * Enrols on the Security page (already open), the password first (with a
 * screenshot, a wrong one is tried and refused before): answers the key read
 * from the page and the recovery codes shown.
 */
async function enrol(page: Page, screenshot?: string) {
  const password = page.getByLabel('Your password');
  if (screenshot) {
    await password.fill('not the password at all');
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByText('The password is wrong.').waitFor();
    await expect(page.getByRole('img', { name: /QR code to add/ }).count()).resolves.toBe(0);
  }
  await password.fill(PASSWORD);
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await page.getByRole('img', { name: /QR code to add/ }).waitFor();
  const secret = (await page.getByLabel('secret key', { exact: true }).innerText()).trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  if (screenshot) {
    await expectAccessible(page, 'enrolment');
    await page.screenshot({ path: screenshot, fullPage: true });
  }
  await page.getByLabel('Code from your authenticator app').fill(nextCode(secret));
  await page.getByRole('button', { name: 'Confirm and turn on' }).click();
  const dialog = page.getByRole('dialog', { name: 'Your recovery codes' });
  await dialog.waitFor();
  const codes = await dialog.getByRole('listitem').allInnerTexts();
  expect(codes).toHaveLength(10);
  if (screenshot) {
    await settled(page); // the modal's opening transition
    await page.screenshot({ path: screenshot.replace('.png', '-codes.png') });
  }
  await dialog.getByRole('button', { name: 'I have saved them' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByText('Logging in asks for a code from your authenticator app').waitFor();
  return { secret, codes };
}

describe.skipIf(!chromiumAvailable)('second factor in the dashboard', () => {
  it('a user enrols, logs out, and logging in asks for the code', async () => {
    const email = await createMember(service, tenant.organizationId, 'owner', 'owner-2fa');
    const page = await newPage();
    await passwordStep(page, email);
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    await page.goto(`${service.url}/dashboard/account/security`);
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    await expectAccessible(page, 'security (off)');
    const { secret, codes } = await enrol(page, '/tmp/second-factor-enrolment.png');
    // The success notification (the theme's, checked elsewhere) closes by itself; the page is what is checked here.
    await page.getByText('Second factor on. Your other sessions have ended.').waitFor({ state: 'hidden', timeout: 20_000 });
    await expectAccessible(page, 'security (on)');
    await page.screenshot({ path: '/tmp/second-factor-on.png', fullPage: true });

    // Logged out: the password alone no longer opens the dashboard.
    await page.context().clearCookies();
    await passwordStep(page, email);
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    const codeField = page.getByLabel('Code from your authenticator app');
    await expect(codeField.getAttribute('autocomplete')).resolves.toBe('one-time-code');
    await expect(codeField.getAttribute('inputmode')).resolves.toBe('numeric');
    await expect(codeField.evaluate((element) => element.matches(':focus'))).resolves.toBe(true);
    await expectAccessible(page, 'log-in second step');
    await page.screenshot({ path: '/tmp/second-factor-login-step.png' });

    // A wrong code says so and keeps the step; the right one, typed and sent with Enter, gets in.
    await codeField.fill('000000' === nextCode(secret) ? '111111' : '000000');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').getByText(/wrong or was already used/).waitFor();
    await codeField.fill(nextCode(secret));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    // A recovery code works too, from the switch.
    await page.context().clearCookies();
    await passwordStep(page, email);
    await page.getByLabel('Use a recovery code instead').check();
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(codes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    await page.goto(`${service.url}/dashboard/account/security`);
    await page.getByText('9 of 10 recovery codes left').waitFor();
    await page.close();
  }, 180_000);

  it('an organization that requires it: a member without one is led to enrol, then asked for a code at log-in', async () => {
    const organization = await createTenant(service);
    const ownerEmail = await createMember(service, organization.organizationId, 'owner', 'requiring-owner');
    const memberEmail = await createMember(service, organization.organizationId, 'developer', 'member-2fa');
    const owner = await newPage();
    await passwordStep(owner, ownerEmail);
    await owner.getByRole('heading', { name: 'Home' }).waitFor();

    // Without a second factor of their own the owner is told why they cannot require it.
    await owner.goto(`${service.url}/dashboard/e/${organization.environmentId}/organization`);
    const requirement = owner.getByLabel('Require a second factor (authenticator app) of every member');
    await requirement.click();
    await owner.getByRole('dialog').getByRole('button', { name: 'Require it' }).click();
    await owner.getByText(/lock you out/).waitFor();

    await owner.goto(`${service.url}/dashboard/account/security`);
    await enrol(owner);
    await owner.goto(`${service.url}/dashboard/e/${organization.environmentId}/organization`);
    await requirement.click();
    const confirm = owner.getByRole('dialog');
    await confirm.getByText(/are refused this organization.s data until they set one up/).waitFor();
    await expectAccessible(owner, 'require second factor confirmation');
    await confirm.getByRole('button', { name: 'Require it' }).click();
    await expect.poll(() => requirement.isChecked(), { timeout: 20_000 }).toBe(true);

    // The member logs in with a password: led to the Security page, not the data.
    const member = await newPage();
    await passwordStep(member, memberEmail);
    await member.getByRole('heading', { name: 'Security' }).waitFor();
    await member.getByText(/requires a second factor/).waitFor();
    expect(new URL(member.url()).pathname).toBe('/dashboard/account/security');
    const { secret } = await enrol(member);
    await member.goto(`${service.url}/dashboard/`);
    await member.getByRole('heading', { name: 'Home' }).waitFor();

    // Next time, the log-in asks for the code.
    await member.context().clearCookies();
    await passwordStep(member, memberEmail);
    await member.getByLabel('Code from your authenticator app').fill(nextCode(secret));
    await member.getByRole('button', { name: 'Verify' }).click();
    await member.getByRole('heading', { name: 'Home' }).waitFor();
    await owner.close();
    await member.close();
  }, 240_000);

  it('met no page errors or foreign requests', () => {
    expect(problems).toEqual([]);
  });
});
