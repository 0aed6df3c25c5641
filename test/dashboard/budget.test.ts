/**
 * The dashboard's performance budgets, in Debian's Chromium against the
 * service serving its production build (compressed as it is in production):
 *
 * - the log-in page loads at most 200 kB of JavaScript over the wire, and
 *   neither the charts nor any logged-in page's code (bytes: the same on any host);
 * - logged in as the demo merchant, on "Fast 3G" with the CPU slowed 4×, the
 *   payments list shows its first payment, asking the service for nothing
 *   twice, within a guard of 3× the 3 s goal, with the cache the log-in left
 *   and with an empty one. The goal itself is measured by the benchmark
 *   (`npm run bench:dashboard`, bench/dashboard/run.ts, whose figures count
 *   on a quiet machine): a time depends on the host, and a suite that fails by
 *   the host's speed blocks every change; the guard catches a page that got
 *   grossly slower. The times are judged only on a host otherwise quiet (see
 *   hostBusyShare); the suite runs this file alone, after every other
 *   (vitest.config.ts), so in CI they are.
 *
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemo } from '../../server/sandbox/demo';
import type { DemoTenant } from '../../server/sandbox/demo-seed';
import { call, validPayment } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { buildDashboard, chromiumAvailable, launchChromium, watchPage } from '../support/browser';
import { apiCalls, describeRun, FIRST_ROW_GOAL_MS, hostBusyShare, kB, logInThroughPage, openLoginPage, short, timeFirstPaymentRow } from '../../bench/dashboard/first-row';

const LOGIN_SCRIPT_BUDGET = 200_000;
/** A regression guard, not the goal: 3× the 3 s goal, for the cached and the empty cache alike. */
const FIRST_ROW_GUARD_MS = 3 * FIRST_ROW_GOAL_MS;
/** Above this share of the host's CPU busy with other work just before measuring, the host, not the page, sets the time. */
const MAX_HOST_BUSY = 0.5;
const PAYMENTS = 30;

let service: TestService;
let demo: DemoTenant;
let browser: Browser;
const newestExternalId = `budget-order-${PAYMENTS}`;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  service = await startTestService();
  // The embedded demo's tenant, user and simulators, as `npm start` seeds them.
  demo = (await startDemo(service.services))!;
  expect(demo.dashboardUser?.password).toBeTruthy();
  // The demo merchant's payments, made as the README's first call makes them: with the demo key over /v1.
  for (let i = 1; i <= PAYMENTS; i++) {
    const created = await call(service.url, 'POST', '/v1/payments', {
      key: demo.apiKey,
      body: validPayment({ externalId: `budget-order-${i}`, amount: 1000 + i }),
    });
    expect(created.status, created.text).toBe(201);
  }
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

describe.skipIf(!chromiumAvailable)('the dashboard on a slow phone', () => {
  let context: BrowserContext;
  let page: Page | undefined;
  let problems: string[];

  // A failed step says what the page showed.
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
  });

  it('log-in page: at most 200 kB of compressed JavaScript, without the charts or any logged-in page', async () => {
    context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const login = await openLoginPage(context, service.url);
    page = login.page;
    login.page.setDefaultTimeout(15_000);
    problems = watchPage(login.page, service.url);
    const total = login.scripts.reduce((sum, script) => sum + script.transferred, 0);
    console.info(`[budget] log-in page: ${kB(total)} of JavaScript over the wire (budget ${kB(LOGIN_SCRIPT_BUDGET)}): ${login.scripts.map((s) => `${short(s.url)} ${kB(s.transferred)} ${s.encoding ?? 'plain'}`).join(', ')}`);
    expect(login.scripts.length).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(LOGIN_SCRIPT_BUDGET);
    // Sent compressed (a tiny file may go plain: its copy would not be smaller).
    for (const script of login.scripts) if (script.transferred > 2_000) expect(script.encoding, short(script.url)).toBe('br');
    // The chart library and the logged-in pages (their layout included) are not part of it.
    const names = login.scripts.map((script) => short(script.url));
    for (const name of names) expect(name).not.toMatch(/charts|AppLayout|Home|Payments|SignedIn|app-/);
  }, 60_000);

  it('first payment row on Fast 3G with a 4× slower CPU, logged in as the demo merchant, each call asked once: within the guard of 9 s (the 3 s goal is the benchmark\'s)', async () => {
    if (!page) throw new Error('the log-in page did not open');
    await logInThroughPage(page, demo.dashboardUser!.email, demo.dashboardUser!.password!);

    const busy = await hostBusyShare();
    const paymentsUrl = `${service.url}/dashboard/e/${demo.environmentId}/payments`;
    const afterLogin = await timeFirstPaymentRow(page, paymentsUrl, { emptyCache: false });
    console.info(`[budget] ${describeRun('payments, cache as the log-in left it', afterLogin)}`);
    const emptyCache = await timeFirstPaymentRow(page, paymentsUrl, { emptyCache: true });
    console.info(`[budget] ${describeRun('payments, empty cache', emptyCache)}`);

    // Every call once: the session preloaded by the page and the list asked for early are picked up, not asked again.
    for (const run of [afterLogin, emptyCache]) {
      const calls = apiCalls(run);
      expect(calls.filter((call, i) => calls.indexOf(call) !== i), 'asked twice').toEqual([]);
      expect(calls).toEqual(expect.arrayContaining(['auth.session', 'payments.list']));
    }
    // The newest of the demo's payments heads the list.
    expect(afterLogin.firstRow).toContain(newestExternalId);
    expect(emptyCache.firstRow).toContain(newestExternalId);
    // A 4× slower CPU means 4× slower than a machine doing nothing else. On a host busy with other work (this
    // file run beside others, by hand), the page's own CPU work (parsing, React, style and layout) is slowed
    // again as much, and the time says more about the host than about the page: then it is printed, not judged.
    if (busy > MAX_HOST_BUSY) {
      console.warn(`[budget] first-row times not judged: ${Math.round(busy * 100)}% of the host's CPU was busy with other work (over ${MAX_HOST_BUSY * 100}%); the log-in budget above still holds`);
    } else {
      console.info(`[budget] host ${Math.round(busy * 100)}% busy before measuring: the first-row times are held to ${FIRST_ROW_GUARD_MS} ms`);
      expect(afterLogin.ms).toBeLessThanOrEqual(FIRST_ROW_GUARD_MS);
      expect(emptyCache.ms).toBeLessThanOrEqual(FIRST_ROW_GUARD_MS);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
