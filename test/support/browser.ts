/**
 * What the dashboard's browser tests share: the production build of the
 * dashboard (made once, whichever test file gets there first), Debian's
 * Chromium driven by playwright-core, a user created through the router,
 * logging in through the page, and a local webhook receiver.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestService } from './service';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);

const LOCK = 'dist/.dashboard-build.lock';

/**
 * `node build.mjs --dashboard-only --if-stale`, once across parallel test
 * files: a folder made atomically is the lock; the others wait for it to go.
 */
export function buildDashboard(): void {
  mkdirSync('dist', { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock older than two minutes is left from a killed run.
      const since = statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() > deadline || Date.now() - since > 120_000) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    execFileSync(process.execPath, ['build.mjs', '--dashboard-only', '--if-stale', '--quiet'], { stdio: 'inherit' });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export const PASSWORD = 'correct horse battery staple';
let counter = 0;
export const uniqueEmail = (who: string) => `${who}-${process.pid}-${++counter}@example.com`;

/** A dashboard user with a role in one organization (added at once by the operator's `members.add`). */
export async function createMember(service: TestService, organizationId: string, role: 'owner' | 'developer' | 'viewer', who: string = role): Promise<string> {
  const email = uniqueEmail(who);
  await service.admin.users.create({ email, password: PASSWORD });
  await service.admin.members.add({ organizationId, email, role });
  return email;
}

/** Logs in through the login page and waits (up to `timeoutMs`: longer on a loaded machine) for the first page after it. */
export async function logIn(page: Page, baseUrl: string, email: string, timeoutMs = 15_000): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  try {
    await page.getByRole('heading', { name: 'Home' }).waitFor({ timeout: timeoutMs });
  } catch (error) {
    // What the page shows instead (an error message) says more than a timeout.
    throw new Error(`no home page after logging in as ${email}; the page reads: ${await page.locator('body').innerText()}`, { cause: error });
  }
}

/** Collects what would make a page wrong whatever it shows: uncaught errors and requests to other origins. */
export function watchPage(page: Page, baseUrl: string) {
  const origin = new URL(baseUrl).origin;
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) problems.push(`foreign request: ${url}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return problems;
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on an ephemeral local port; `failing` makes it answer 500. */
export async function startReceiver() {
  const received: Received[] = [];
  const state = { failing: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = state.failing ? 500 : 200;
      res.setHeader('content-type', 'text/plain');
      res.end(state.failing ? 'receiver is down for the test' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Waits until `check` holds (polling), or fails with `what`. */
export async function eventually(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until the page's transitions and finite animations have ended (a
 * dialog opening, a focus ring or a notice fading), so a screenshot or a
 * reading of computed styles sees the final state; endless ones (a loader)
 * are not waited for. axeScan (axe.ts) waits for it before every scan.
 */
export async function settled(page: Page, timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(
    () => {
      type Animation = { playState: string; effect: { getComputedTiming(): { iterations?: number } } | null };
      const { document } = globalThis as unknown as { document: { getAnimations(): Animation[] } };
      return document.getAnimations().every((animation) => animation.playState !== 'running' || animation.effect?.getComputedTiming().iterations === Infinity);
    },
    undefined,
    { timeout: timeoutMs },
  );
}
