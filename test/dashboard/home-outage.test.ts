/**
 * An outage on Home, in a real browser (Debian's Chromium) against a real
 * service serving the production build, with the gateway simulators over
 * real sockets:
 * - gateway_a answers every card create with 503: twelve card payments fail
 *   (the card rule names gateway_a alone), its breaker opens after the
 *   twelfth, and Home shows a banner (role="alert") naming gateway_a's open
 *   breaker and the card payments failing there, linking to Gateways;
 * - gateway_a heals: once a card payment gets through again (the breaker's
 *   probe, after its short cool-down), the banner goes;
 * - the webhook endpoint is unreachable (retries on, an hour apart), so the
 *   paid payments' deliveries queue up: Home shows them as queued, with the
 *   age of the oldest, where it used to say "Failed deliveries 0".
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axeScan, blocking, describeViolations } from '../support/axe';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, watchPage } from '../support/browser';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { failingMethods, type AttemptRow } from '../../server/domain/routing/outage';
import type { AttemptOutcome } from '../../server/domain/routing/trace';

const SHOTS = 'test-results';
const FAILING_CREATES = 12;

let sandboxed: SandboxedService;
let browser: Browser;
let page: Page;
let problems: string[];
let environmentId: string;
let baseUrl: string;
let created = 0;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  sandboxed = await startSandboxedService({
    simulatorsInService: true,
    routes: { CARD: 'gateway_a', PIX: 'gateway_b' },
    env: {
      // The twelfth unavailable create in a row opens the breaker; its cool-down is short so the test sees it close.
      ROUTING_BREAKER_CONSECUTIVE: String(FAILING_CREATES),
      ROUTING_BREAKER_MIN_CALLS: '1000',
      ROUTING_BREAKER_COOLDOWN_MS: '3000',
      WEBHOOK_ALLOW_LOCAL_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_RETRY_SCHEDULE: '1h',
    },
  });
  baseUrl = sandboxed.service.url;
  environmentId = sandboxed.tenant.environmentId;
  // Nothing listens on the discard port: each delivery's attempt fails and waits an hour for its retry.
  await sandboxed.service.admin.webhooks.createEndpoint({ environmentId, url: 'http://127.0.0.1:9/hooks', retries: true });
  const viewer = await createMember(sandboxed.service, sandboxed.tenant.organizationId, 'viewer');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.setDefaultTimeout(20_000); // two cores shared with other test files
  problems = watchPage(page, baseUrl);
  await logIn(page, baseUrl, viewer);
  mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sandboxed?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

const createPayment = (method: 'card' | 'pix') =>
  call(baseUrl, 'POST', '/v1/payments', { key: sandboxed.tenant.apiKey, body: validPayment({ method, externalId: `home-outage-${method}-${++created}` }) });
const banner = () => page.getByRole('alert').filter({ hasText: 'Payments are failing at a gateway' });
const openHome = () => page.goto(`${baseUrl}/dashboard/e/${environmentId}`);
const queuedDeliveries = async () =>
  (await sandboxed.service.admin.webhooks.listDeliveries({ environmentId, status: 'PENDING', limit: 100 })).items.length;

describe.skipIf(!chromiumAvailable)('an outage on Home', { timeout: 180_000 }, () => {
  it('shows no banner while the gateways answer', async () => {
    expect((await createPayment('pix')).status).toBe(201);
    await openHome();
    await page.getByRole('heading', { name: 'Webhook deliveries owed' }).waitFor();
    expect(await banner().count()).toBe(0);
  });

  it('names the gateway whose card creates fail and whose breaker opened, and links to Gateways', async () => {
    await sandboxed.service.admin.simulators.fault({ gateway: 'gateway_a', operation: 'createPayment', fault: { kind: 'server_error', status: 503 }, times: 1000 });
    for (let i = 0; i < FAILING_CREATES; i++) expect((await createPayment('card')).status).toBeGreaterThanOrEqual(500);

    await openHome();
    await banner().waitFor();
    const text = await banner().innerText();
    // Open, or already half-open when the page is read after the short cool-down: not closed either way.
    expect(text).toMatch(/gateway_a's breaker is (open: new payments skip it|half-open: one payment at a time probes it), since /);
    expect(text).toContain(`Card payments at gateway_a: 0 of ${FAILING_CREATES} calls answered in the last 15 minutes (0 %), failing since`);
    expect(text).not.toContain('gateway_b');
    const link = banner().getByRole('link', { name: "See the gateways' health and routing" });
    expect(await link.getAttribute('href')).toBe(`/dashboard/e/${environmentId}/gateways`);

    expect(describeViolations('home with an outage', blocking(await axeScan(page)))).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/home-outage.png`, fullPage: true });
  });

  it('goes once the gateway answers again', async () => {
    await sandboxed.service.admin.simulators.clearFaults({ gateway: 'gateway_a' });
    // Skipped (503) while the breaker cools down; then its probe gets through and closes it.
    await eventually(async () => (await createPayment('card')).status === 201, 60_000, 'a card payment through gateway_a again');
    await openHome();
    await page.getByRole('heading', { name: 'Webhook deliveries owed' }).waitFor();
    await eventually(async () => (await banner().count()) === 0 || undefined, 30_000, 'the banner gone');
  });

  it('shows the deliveries queued for an unreachable endpoint, and the oldest one waiting', async () => {
    // Each payment's event waits for its retry an hour away once its first attempt failed; Home agrees with the list.
    await openHome();
    const backlog = page.getByRole('region', { name: 'Webhook deliveries owed' });
    const { queued, read } = await eventually(async () => {
      await page.reload();
      await backlog.getByText('Oldest queued').waitFor();
      const read = await backlog.innerText();
      const queued = await queuedDeliveries();
      return queued >= 2 && new RegExp(`Queued\\s+${queued}\\s+waiting for a first attempt or a retry`).test(read) ? { queued, read } : undefined;
    }, 60_000, 'Home showing the deliveries queued for the endpoint');
    expect(read).toMatch(/Failed\s+0\s+/);
    expect(read).toMatch(/Oldest queued\s+(\d+ (seconds?|minutes?) ago|now)\s+created /);
    expect(await backlog.getByRole('link', { name: String(queued), exact: true }).getAttribute('href')).toBe(`/dashboard/e/${environmentId}/deliveries?status=PENDING`);
    expect(await page.getByText('Failed deliveries').count()).toBe(0);

    expect(describeViolations('home with a backlog', blocking(await axeScan(page)))).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/home-backlog.png`, fullPage: true });
    expect(problems).toEqual([]);
  });
});

/** Which calls make an outage, without a browser: the threshold, the minimum of calls, and a gateway answering again. */
describe('which calls make a method fail at a gateway', () => {
  const calls = (outcomes: AttemptOutcome[], method: 'card' | 'pix' = 'card', gateway: 'gateway_a' | 'gateway_b' = 'gateway_a'): AttemptRow[] =>
    outcomes.map((outcome, i) => ({ method, gateway, outcome, started_at: new Date(Date.UTC(2026, 10, 27, 20, 0, i)).toISOString() }));
  const times = (n: number, outcome: AttemptOutcome) => Array.from({ length: n }, () => outcome);

  it('names a method below 80 % answered over at least 10 calls, from its first failure', () => {
    const rows = calls([...times(7, 'succeeded'), 'unavailable', 'timeout', 'unavailable']);
    expect(failingMethods(rows)).toEqual([{ method: 'card', gateway: 'gateway_a', attempts: 10, failed: 3, successRate: 0.7, since: rows[7]!.started_at }]);
  });

  it('says nothing at 80 % answered, under 10 calls, or once the latest call was answered', () => {
    expect(failingMethods(calls([...times(8, 'succeeded'), 'unavailable', 'timeout']))).toEqual([]);
    expect(failingMethods(calls(times(9, 'unavailable')))).toEqual([]);
    expect(failingMethods(calls([...times(10, 'unavailable'), 'succeeded']))).toEqual([]);
  });

  it('counts a refusal as the gateway answering, and keeps each method and gateway apart', () => {
    expect(failingMethods(calls([...times(5, 'refused'), ...times(3, 'succeeded'), 'timeout', 'unavailable']))).toEqual([]);
    const rows = [...calls(times(10, 'unavailable'), 'pix', 'gateway_b'), ...calls(times(10, 'succeeded'), 'card', 'gateway_b')];
    expect(failingMethods(rows).map((f) => [f.method, f.gateway, f.attempts])).toEqual([['pix', 'gateway_b', 10]]);
  });
});
