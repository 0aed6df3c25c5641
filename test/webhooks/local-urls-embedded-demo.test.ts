/**
 * A sandbox webhook endpoint may point at this machine (loopback, private
 * addresses, http://) only in the embedded demo: `npm start` on PGlite with
 * the demo tenant, a trial whose only receiver is local. The same settings on
 * PostgreSQL (SEED_DEMO=true, as a staging start seeds its demo tenant) are a
 * service shared by people: there a loopback URL is refused as any internal
 * address is, unless WEBHOOK_ALLOW_LOCAL_URLS says otherwise. Each database
 * pass checks its own side with the same test service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/database';
import { call } from '../support/http';
import { commitPaymentEvents, newPaymentId } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
let receiver: Receiver;

beforeAll(async () => {
  // No WEBHOOK_ALLOW_LOCAL_URLS: the default decides.
  service = await startTestService({ env: { SEED_DEMO: 'true', WEBHOOK_POLL_INTERVAL_MS: '100' } });
  tenant = await createTenant(service);
  receiver = await startReceiver();
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await service?.stop();
});

const createEndpoint = (url: string) => call(service.url, 'POST', '/internal/trpc/webhooks.createEndpoint', { key: service.adminToken, body: { environmentId: tenant.environmentId, url } });

describe.skipIf(!onPostgres)('on PostgreSQL with SEED_DEMO=true', () => {
  it('refuses a loopback or private endpoint URL with invalid_input, and stores nothing', async () => {
    for (const url of [receiver.url(), `https://127.0.0.1:${receiver.port}/hooks`, 'https://10.0.0.7/hooks']) {
      const reply = await createEndpoint(url);
      expect(reply.status, url).toBe(400);
      expect(reply.body, url).toMatchObject({ error: 'invalid_input', message: expect.stringMatching(/Webhook URL refused: .*(https|loopback|private)/) });
    }
    expect(await service.admin.webhooks.listEndpoints({ environmentId: tenant.environmentId })).toEqual([]);
  });
});

describe.skipIf(onPostgres)('in the embedded demo', () => {
  it('accepts an http:// receiver on this machine and delivers to it', async () => {
    const reply = await createEndpoint(receiver.url());
    expect(reply.status).toBe(200);
    const paymentId = newPaymentId();
    await commitPaymentEvents(service, tenant.environmentId, paymentId, ['paid']);
    const [delivery] = await receiver.waitFor(1, 10_000);
    expect(delivery!.json).toMatchObject({ type: 'payment.paid', data: { paymentId } });
  });
});
