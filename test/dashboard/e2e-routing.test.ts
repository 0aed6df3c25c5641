/**
 * Routing on the dashboard, in a real browser (Debian's Chromium) against a
 * real service serving the production build, with the three gateway
 * simulators over real sockets (decision 21):
 * - a developer turns the Pix rule into [gateway_a, gateway_b] from the
 *   keyboard, after a confirmation that names the effect (a cancel changes
 *   nothing), and a split whose weights do not add up to 100 is refused on
 *   the page before anything is sent;
 * - the dry run names the gateway a request would take and why;
 * - with gateway_a answering 5xx, a test payment made on the page lands on
 *   gateway_b, its page shows the routing trace (gateway_a unavailable, then
 *   gateway_b), and the routing page shows gateway_a's failures, its circuit
 *   open, and the dry run passing it over;
 * - a viewer reads the rule and the trace but has nothing to edit.
 * Skipped only where /usr/bin/chromium is missing (CI installs it).
 */
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { buildDashboard, chromiumAvailable, createMember, launchChromium, logIn, settled, watchPage } from '../support/browser';

const SHOTS = 'test-results';

let sandboxed: SandboxedService;
let browser: Browser;
let page: Page;
let problems: string[];
let developer: string;
let viewer: string;
let environmentId: string;
let baseUrl: string;
let fallbackPaymentId: string;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  buildDashboard();
  sandboxed = await startSandboxedService({
    simulatorsInService: true,
    routes: { PIX: 'gateway_a' },
    // Two unavailable creates in a row open gateway_a's circuit, for longer than the test runs; health counts the last 10 minutes.
    env: { ROUTING_BREAKER_CONSECUTIVE: '2', ROUTING_BREAKER_COOLDOWN_MS: '600000', ROUTING_BREAKER_WINDOW_MS: '600000' },
  });
  baseUrl = sandboxed.service.url;
  environmentId = sandboxed.tenant.environmentId;
  developer = await createMember(sandboxed.service, sandboxed.tenant.organizationId, 'developer');
  viewer = await createMember(sandboxed.service, sandboxed.tenant.organizationId, 'viewer');
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sandboxed?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && page) console.error(`the page read:\n${await page.locator('body').innerText().catch(() => '(no page)')}`);
});

/** Each person logs in once (through the page); later pages open in their browser context, with its session cookie. */
const contexts = new Map<string, BrowserContext>();
async function openAs(email: string, path: string): Promise<Page> {
  let context = contexts.get(email);
  const first = !context;
  if (!context) {
    context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    contexts.set(email, context);
  }
  page = await context.newPage();
  page.setDefaultTimeout(20_000); // two cores shared with other test files
  problems = watchPage(page, baseUrl);
  if (first) await logIn(page, baseUrl, email);
  await page.goto(`${baseUrl}/dashboard/e/${environmentId}/${path}`);
  return page;
}

const pixRule = () => page.getByRole('region', { name: 'Pix', exact: true });
const rulesOf = async () => (await sandboxed.service.admin.routing.list({ environmentId })).find((r) => r.method === 'PIX')?.gateways;
const focusedLabel = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } | null } }).document.activeElement?.getAttribute('aria-label') ?? null);

// A browser and the service share two cores with other test files: each step gets time.
describe.skipIf(!chromiumAvailable)('routing on the dashboard', { timeout: 120_000 }, () => {
  it('a developer sets the Pix rule [gateway_a, gateway_b] from the keyboard, after a confirmation naming the effect', async () => {
    await openAs(developer, 'gateways');
    await page.getByRole('heading', { name: 'Routing', exact: true }).waitFor();
    expect(await pixRule().getByLabel('Primary gateway').inputValue()).toBe('gateway_a');

    // The simple case stays simple: one click adds the next gateway as the fallback.
    await pixRule().getByRole('button', { name: 'Add a fallback' }).click();
    expect(await pixRule().getByLabel('Fallback 1 gateway').inputValue()).toBe('gateway_b');
    await pixRule().getByText('unsaved changes').waitFor();

    // Reordering is keyboard work: Enter on "move up", and focus follows the row that moved.
    await pixRule().getByRole('button', { name: 'Move gateway_b up' }).focus();
    await page.keyboard.press('Enter');
    expect(await pixRule().getByLabel('Primary gateway').inputValue()).toBe('gateway_b');
    expect(await focusedLabel()).toBe('Move gateway_b down');
    await page.keyboard.press('Enter');
    expect(await pixRule().getByLabel('Primary gateway').inputValue()).toBe('gateway_a');

    // A split whose weights do not add up to 100 is refused on the page.
    await pixRule().getByRole('switch', { name: 'Split by weight' }).check({ force: true });
    await pixRule().getByLabel('Weight of gateway_a').fill('80');
    await pixRule().getByLabel('Weight of gateway_b').fill('30');
    await pixRule().getByRole('button', { name: 'Save rule' }).click();
    await pixRule().getByText('The weights are percentages and add up to 100; these add up to 110.').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await pixRule().getByRole('switch', { name: 'Split by weight' }).uncheck({ force: true });

    await pixRule().getByRole('button', { name: 'Save rule' }).click();
    let dialog = page.getByRole('dialog', { name: 'Change the Pix rule?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('New Pix payments will go to gateway_a first, then gateway_b.');
    expect(await dialog.getByTestId('confirm-target').innerText()).toMatch(/^Sandbox:/);
    await settled(page); // the dialog's opening transition
    await page.screenshot({ path: `${SHOTS}/routing-confirm.png` });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await rulesOf()).toEqual([{ gateway: 'gateway_a', weight: null }]);

    await pixRule().getByRole('button', { name: 'Save rule' }).click();
    dialog = page.getByRole('dialog', { name: 'Change the Pix rule?' });
    await dialog.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Pix rule saved.').waitFor();
    expect(await rulesOf()).toEqual([
      { gateway: 'gateway_a', weight: null },
      { gateway: 'gateway_b', weight: null },
    ]);
    // Listed as saved: no pending change, the order as chosen.
    await pixRule().getByText('unsaved changes').waitFor({ state: 'detached' });
    expect(await pixRule().getByLabel('Primary gateway').inputValue()).toBe('gateway_a');
    expect(await pixRule().getByLabel('Fallback 1 gateway').inputValue()).toBe('gateway_b');
    expect(problems).toEqual([]);
  });

  it('clearing a rule warns that every new payment of the method will be refused with 409', async () => {
    await sandboxed.service.admin.routing.set({ environmentId, method: 'CARD', gateways: [{ gateway: 'gateway_a' }] });
    await page.reload();
    // An unsaved Pix change is kept when the rules are read again after someone else changed Pix, and the page says so.
    await pixRule().getByRole('button', { name: 'Add a fallback' }).click();
    await sandboxed.service.admin.routing.set({ environmentId, method: 'PIX', gateways: [{ gateway: 'gateway_b' }] });
    const cardRule = page.getByRole('region', { name: 'Card', exact: true });
    await cardRule.getByRole('button', { name: 'Remove rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the Card rule?' });
    expect(await dialog.innerText()).toContain('Every new card payment will fail with 409 no_routing_rule until a rule is set again.');
    await dialog.getByRole('button', { name: 'Remove rule' }).click();
    await cardRule.getByText('no rule: refused').waitFor();
    expect((await sandboxed.service.admin.routing.list({ environmentId })).some((r) => r.method === 'CARD')).toBe(false);
    // Removing the Card rule read the rules again: the Pix draft (three gateways) survived, with the warning.
    await pixRule().getByText('This rule was changed elsewhere while you edited it; it is now gateway_b.').waitFor();
    expect(await pixRule().getByLabel('Fallback 2 gateway').inputValue()).toBe('gateway_c');
    await pixRule().getByRole('button', { name: 'Discard changes' }).click();
    expect(await pixRule().getByLabel('Primary gateway').inputValue()).toBe('gateway_b');
    await sandboxed.service.admin.routing.set({ environmentId, method: 'PIX', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] });
    await page.reload();
    expect(await pixRule().getByLabel('Fallback 1 gateway').inputValue()).toBe('gateway_b');
  });

  it("in production the confirmation names the environment and waits for the project's name", async () => {
    const production = await sandboxed.service.admin.environments.create({ projectId: sandboxed.tenant.projectId, kind: 'production' });
    await page.goto(`${baseUrl}/dashboard/e/${production.id}/gateways`);
    await pixRule().getByRole('button', { name: 'Add a gateway' }).click();
    await pixRule().getByRole('button', { name: 'Save rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change the Pix rule in production?' });
    await dialog.waitFor();
    expect(await dialog.getByTestId('confirm-target').innerText()).toMatch(/^Production: Test organization \/ Test project/);
    expect(await dialog.innerText()).toContain('New Pix payments will go to gateway_a, with no fallback');
    // No account here yet: the rule would be passed over, and the page says so before it is saved.
    expect(await dialog.innerText()).toContain('gateway_a is not configured in this environment');
    const confirm = dialog.getByRole('button', { name: 'Save rule' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type Test project to confirm').fill('Test project');
    await confirm.click();
    await page.getByText('Pix rule saved.').waitFor();
    expect((await sandboxed.service.admin.routing.list({ environmentId: production.id })).map((r) => [r.method, r.gateways])).toEqual([['PIX', [{ gateway: 'gateway_a', weight: null }]]]);
    await page.goto(`${baseUrl}/dashboard/e/${environmentId}/gateways`);
  });

  it('the dry run says which gateway would take a Pix now, and why', async () => {
    const dryRun = page.getByRole('region', { name: 'Dry run' });
    await dryRun.getByLabel('External id').fill('order-42');
    await dryRun.getByRole('button', { name: 'Explain' }).click();
    await dryRun.getByText('A new Pix request with externalId order-42 would go to gateway_a').waitFor();
    const candidates = dryRun.getByRole('table', { name: 'Candidates' });
    await candidates.getByRole('row').filter({ hasText: 'gateway_a' }).getByText('available').waitFor();
    await candidates.getByRole('row').filter({ hasText: 'gateway_b' }).getByText('available').waitFor();
    await page.close();
  });

  it('with gateway_a failing, a test payment lands on gateway_b; its page shows the fallback, the routing page the failures', async () => {
    await sandboxed.service.admin.simulators.fault({ gateway: 'gateway_a', operation: 'createPayment', fault: { kind: 'server_error', status: 503 }, times: 2 });
    await openAs(developer, 'payments');
    await page.getByRole('button', { name: 'New test payment' }).click();
    await page.getByLabel('External id').fill('pix-while-a-is-down');
    await page.getByRole('dialog').getByRole('button', { name: 'Create test payment' }).click();
    // The new payment's page, not the list's search help that also names the gateway reference.
    await page.waitForURL(/\/payments\/pay_\w+$/);
    await page.getByText('Gateway reference', { exact: true }).waitFor();
    fallbackPaymentId = /\/payments\/(pay_\w+)$/.exec(page.url())![1]!;

    const trace = page.getByRole('region', { name: 'Routing', exact: true });
    await trace.getByText('Taken by gateway_b after 1 other attempt.').waitFor();
    const attempts = trace.getByRole('table', { name: 'Routing attempts' }).getByRole('row');
    await expect.poll(() => attempts.count()).toBe(3); // the header and two attempts
    expect(await attempts.nth(1).innerText()).toMatch(/^1\s+gateway_a\s+unavailable\s+\d\d:\d\d:\d\d\.\d{3}( [AP]M)?\s+\d+ ms\s+answered 503/i);
    expect(await attempts.nth(2).innerText()).toMatch(/^2\s+gateway_b\s+succeeded\s+\d\d:\d\d:\d\d\.\d{3}( [AP]M)?\s+\d+ ms/i);
    const payment = await sandboxed.service.admin.payments.get({ paymentId: fallbackPaymentId });
    expect(payment.payment.gateway).toBe('gateway_b');
    await trace.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/routing-trace.png`, fullPage: true });

    // A second unavailable create opens gateway_a's circuit (two in a row).
    const second = await sandboxed.service.admin.sandbox.createPayment({
      environmentId,
      payment: { method: 'pix', amount: 1990, externalId: 'pix-second-while-a-is-down', customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' } },
    });
    expect(second.gateway).toBe('gateway_b');

    await page.goto(`${baseUrl}/dashboard/e/${environmentId}/gateways`);
    const health = page.getByRole('table', { name: 'Gateway health' });
    const rowA = health.getByRole('row').filter({ hasText: 'gateway_a' });
    await rowA.getByText('open', { exact: true }).waitFor();
    const cells = await rowA.getByRole('cell').allTextContents();
    expect(cells.slice(0, 5)).toEqual(['gateway_a', 'open', '0', '2', '0']);
    expect(cells[7]).toMatch(/^in \d+ minutes?$/);
    const rowB = health.getByRole('row').filter({ hasText: 'gateway_b' });
    expect((await rowB.getByRole('cell').allTextContents()).slice(0, 4)).toEqual(['gateway_b', 'closed', '2', '0']);

    const dryRun = page.getByRole('region', { name: 'Dry run' });
    await dryRun.getByRole('button', { name: 'Explain' }).click();
    await dryRun.getByText('A new Pix request would go to gateway_b').waitFor();
    await dryRun.getByRole('table', { name: 'Candidates' }).getByRole('row').filter({ hasText: 'gateway_a' }).getByText('circuit open').waitFor();
    await page.screenshot({ path: `${SHOTS}/routing-page.png`, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a subscription's page shows its routing trace too", async () => {
    await sandboxed.service.admin.routing.set({ environmentId, method: 'SUBSCRIPTION', gateways: [{ gateway: 'gateway_b' }, { gateway: 'gateway_a' }] });
    await sandboxed.service.admin.simulators.fault({ gateway: 'gateway_b', operation: 'createSubscription', fault: { kind: 'server_error' }, times: 1 });
    const reply = await call(baseUrl, 'POST', '/v1/subscriptions', {
      key: sandboxed.tenant.apiKey,
      body: { amount: 4990, interval: 'monthly', externalId: 'sub-while-b-is-down', customer: { name: 'Ana', email: 'ana@example.com', document: '12345678909' } },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.gateway).toBe('gateway_a');
    await openAs(developer, `subscriptions/${reply.body.id}`);
    const trace = page.getByRole('region', { name: 'Routing', exact: true });
    await trace.getByText('Taken by gateway_a after 1 other attempt.').waitFor();
    const attempts = trace.getByRole('table', { name: 'Routing attempts' }).getByRole('row');
    expect(await attempts.nth(1).innerText()).toMatch(/gateway_b\s+unavailable/i);
    expect(await attempts.nth(2).innerText()).toMatch(/gateway_a\s+succeeded/i);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a viewer reads the rule and the trace, with nothing to edit', async () => {
    await openAs(viewer, 'gateways');
    await page.getByRole('heading', { name: 'Routing', exact: true }).waitFor();
    expect(await pixRule().getByLabel('Primary gateway').inputValue()).toBe('gateway_a');
    expect(await pixRule().getByLabel('Primary gateway').isDisabled()).toBe(true);
    expect(await pixRule().getByRole('button').count()).toBe(0);

    await page.goto(`${baseUrl}/dashboard/e/${environmentId}/payments/${fallbackPaymentId}`);
    await page.getByRole('region', { name: 'Routing', exact: true }).getByText('Taken by gateway_b after 1 other attempt.').waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });
});
