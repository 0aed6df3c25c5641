/**
 * `npm run dashboard:screenshots`: the README's pictures of the dashboard.
 * Starts a service on a throwaway embedded database with the three gateway
 * simulators, seeds a sandbox with a few weeks of payments (spread over past
 * days), subscriptions, an endpoint receiving deliveries and a key, logs in
 * with Debian's Chromium and saves docs/dashboard-*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessSandbox } from '../../server/sandbox/in-process';
import { startSandbox } from '../../test/support/gateways';
import { call, validPayment } from '../../test/support/http';
import { startTestService } from '../../test/support/service';
import { buildDashboard, createMember, launchChromium, logIn, startReceiver } from '../../test/support/browser';

const OUT = 'docs';
const DAY_MS = 24 * 60 * 60 * 1000;

buildDashboard();
const service = await startTestService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', LOG_LEVEL: 'warn' } });
const receiver = await startReceiver();
const admin = service.admin;
try {
  const organization = await admin.organizations.create({ name: 'Acme Store', monthlyTxLimit: 5000 });
  const project = await admin.projects.create({ organizationId: organization.id, name: 'Web checkout' });
  const sandboxEnv = await admin.environments.create({ projectId: project.id, kind: 'sandbox' });
  await admin.environments.create({ projectId: project.id, kind: 'production' });
  const environmentId = sandboxEnv.id;
  const sandbox = await startSandbox(service, environmentId, { PIX: 'gateway_a', CARD: 'gateway_b', SUBSCRIPTION: 'gateway_a' });
  service.services.sandbox = inProcessSandbox(sandbox.sims);
  const key = await admin.apiKeys.create({ environmentId, name: 'checkout-server' });
  await admin.apiKeys.create({ environmentId, name: 'backoffice-sync' });
  await admin.apiKeys.setRateLimits({ apiKeyId: key.id, limits: { payments_create: 600 } });
  await admin.webhooks.createEndpoint({ environmentId, url: receiver.url, description: 'Order service' });
  await admin.webhooks.createEndpoint({ environmentId, url: 'http://127.0.0.1:9/ledger', enabledEvents: ['payment.paid', 'payment.failed'], description: 'Ledger (down)' });

  // Three weeks of payments: most paid, some declined, expired or still open.
  const ids: string[] = [];
  let n = 0;
  for (let day = 20; day >= 0; day--) {
    const count = 2 + ((day * 7) % 5);
    for (let i = 0; i < count; i++) {
      n++;
      const method = n % 3 === 0 ? 'card' : 'pix';
      const created = await call(service.url, 'POST', '/v1/payments', {
        key: key.secret,
        body: validPayment({ method, amount: 990 + ((n * 3731) % 25000), externalId: `order-${10_000 + n}` }),
      });
      if (created.status !== 201) continue;
      const id: string = created.body.id;
      ids.push(id);
      const roll = n % 10;
      const outcome = roll < 6 ? 'pay' : roll === 6 ? 'decline' : roll === 7 && method === 'pix' ? 'expire' : null;
      if (outcome && day > 0) await admin.simulators.payment({ paymentId: id, outcome }).catch(() => undefined);
      const when = new Date(Date.now() - day * DAY_MS - i * 3_600_000);
      await service.services.db.fork().execute('update payments set created_at = ? where id = ?', [when, id]);
    }
  }
  for (let i = 0; i < 5; i++) {
    await call(service.url, 'POST', '/v1/subscriptions', {
      key: key.secret,
      body: { amount: 2990 + i * 1000, interval: i % 2 ? 'yearly' : 'monthly', externalId: `plan-${i + 1}`, customer: validPayment().customer },
    });
  }
  // The newest payment stays open: the one the detail picture shows being paid.
  const focus = await call(service.url, 'POST', '/v1/payments', { key: key.secret, body: validPayment({ amount: 15_990, externalId: 'order-20417' }) });
  await admin.simulators.payment({ paymentId: focus.body.id, outcome: 'pay' });
  await new Promise((resolve) => setTimeout(resolve, 1500));

  const email = await createMember(service, organization.id, 'owner', 'maria');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 }, deviceScaleFactor: 1 });
    await logIn(page, service.url, email);
    const base = `${service.url}/dashboard/e/${environmentId}`;
    const shoot = async (name: string, path: string, ready: string) => {
      await page.goto(`${base}${path}`);
      await page.getByText(ready, { exact: true }).first().waitFor({ timeout: 15_000 });
      await page.waitForTimeout(600);
      await page.screenshot({ path: join(OUT, `dashboard-${name}.png`), fullPage: name === 'payment' });
      console.error(`docs/dashboard-${name}.png`);
    };
    mkdirSync(OUT, { recursive: true });
    await shoot('home', '', 'Payments per day, by status');
    await shoot('payments', '/payments', 'order-20417');
    await shoot('payment', `/payments/${focus.body.id}`, 'payment.paid');
    await shoot('webhooks', '/webhooks', 'Order service');
    await shoot('deliveries', '/deliveries', 'Webhook deliveries');
    await shoot('keys', '/keys', 'checkout-server');
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    await logIn(phone, service.url, email);
    await phone.goto(`${base}/payments/${focus.body.id}`);
    await phone.getByText('payment.paid', { exact: true }).first().waitFor();
    await phone.waitForTimeout(600);
    await phone.screenshot({ path: join(OUT, 'dashboard-phone.png') });
    console.error('docs/dashboard-phone.png');
  } finally {
    await browser.close();
  }
  service.services.sandbox = null;
  await sandbox.close();
} finally {
  await receiver.close();
  await service.stop();
}
