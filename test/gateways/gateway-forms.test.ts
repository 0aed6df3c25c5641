/**
 * gateways.configure against each gateway's description (issue 27, typed
 * gateway forms): a wrong, short or missing credential is refused naming its
 * field and never repeating a value; a merchant points an account only at
 * the base URLs gateways.forms offers (an operator still may go elsewhere);
 * a secret left blank keeps its stored value, and no value is ever answered.
 * The operator CLI lists the same fields and checks them before calling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli';
import { member, type Browser } from '../support/dashboard-sessions';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant } from '../support/tenant';

let sandboxed: SandboxedService;
let developer: Browser;
let environmentId: string;
let simUrl: string;

beforeAll(async () => {
  sandboxed = await startSandboxedService({ simulatorsInService: true, routes: { PIX: 'gateway_b' } });
  environmentId = sandboxed.tenant.environmentId;
  simUrl = sandboxed.sandbox.sims.gateway_b.url;
  developer = await member(sandboxed.service, sandboxed.tenant.organizationId, 'developer');
}, 120_000);
afterAll(async () => {
  await sandboxed?.stop();
});

const configure = (input: Record<string, unknown>) => developer.call('gateways.configure', { environmentId, gateway: 'gateway_b', baseUrl: simUrl, ...input }, { mutation: true });

describe('gateways.forms', () => {
  it("offers each gateway's described fields and its base URLs here, the simulator first, and no value", async () => {
    const reply = await developer.call('gateways.forms', { environmentId });
    expect(reply.status).toBe(200);
    const forms = reply.body.result.data as { gateway: string; fields: { name: string; label: string; secret: boolean }[]; baseUrls: { url: string; label: string }[]; anyHost: boolean }[];
    const b = forms.find((form) => form.gateway === 'gateway_b')!;
    expect(b.fields.map((field) => [field.name, field.label, field.secret])).toEqual([
      ['apiKey', 'API key', true],
      ['webhookToken', 'Webhook token', true],
    ]);
    expect(b.baseUrls[0]).toEqual({ url: simUrl, label: 'Local simulator (this sandbox)' });
    expect(b.baseUrls.map((choice) => choice.url)).toContain('https://sandbox.gateway-b.example');
    expect(b.anyHost).toBe(false);
    expect(forms.map((form) => form.gateway)).toEqual(['gateway_a', 'gateway_b', 'gateway_c']);
  });
});

describe('gateways.configure', () => {
  it('names a wrong and a short field, and repeats no value', async () => {
    const reply = await configure({ credentials: { apiKey: 'abc1234', webhookTokn: 'token-value-that-is-long' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'invalid_input' });
    expect(reply.body.issues).toEqual([
      { path: ['credentials', 'webhookTokn'], message: 'gateway_b takes no credential webhookTokn: its fields are apiKey, webhookToken' },
      { path: ['credentials', 'apiKey'], message: 'API key must be at least 8 characters' },
    ]);
    expect(JSON.stringify(reply.body)).not.toContain('abc1234');
    expect(JSON.stringify(reply.body)).not.toContain('token-value-that-is-long');
  });

  it('names a missing field where nothing is stored to keep', async () => {
    const other = await createTenant(sandboxed.service);
    const owner = await member(sandboxed.service, other.organizationId, 'developer');
    const reply = await owner.call(
      'gateways.configure',
      { environmentId: other.environmentId, gateway: 'gateway_b', baseUrl: 'https://sandbox.gateway-b.example', credentials: { apiKey: 'key_long_enough' } },
      { mutation: true },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.issues).toEqual([{ path: ['credentials', 'webhookToken'], message: 'Webhook token is required' }]);
  });

  it('refuses a merchant a base URL outside the offered ones, naming baseUrl; an operator may still choose it', async () => {
    const reply = await configure({ baseUrl: 'http://127.0.0.1:9/', credentials: {} });
    expect(reply.status).toBe(400);
    expect(reply.body.issues).toEqual([{ path: ['baseUrl'], message: expect.stringMatching(/^choose one of .*127\.0\.0\.1.*only a platform operator points gateway_b elsewhere$/) }]);
    const other = await createTenant(sandboxed.service);
    const account = await sandboxed.service.admin.gateways.configure({
      environmentId: other.environmentId,
      gateway: 'gateway_b',
      baseUrl: 'http://127.0.0.1:9/',
      credentials: { apiKey: 'key_long_enough', webhookToken: 'token_long_enough_16' },
    });
    expect(account.baseUrl).toBe('http://127.0.0.1:9/');
  });

  it('keeps a secret left blank (the account still works) and never answers a value', async () => {
    const before = await developer.call('gateways.list', { environmentId });
    const reply = await configure({ credentials: { apiKey: '', webhookToken: '' }, enabled: true });
    expect(reply.status).toBe(200);
    expect(reply.body.result.data).toMatchObject({ gateway: 'gateway_b', baseUrl: simUrl, credentialFields: ['apiKey', 'webhookToken'] });
    expect(Object.keys(reply.body.result.data)).not.toContain('credentials');
    const payment = await call(sandboxed.service.url, 'POST', '/v1/payments', { key: sandboxed.tenant.apiKey, body: validPayment() });
    expect(payment.status).toBe(201);
    expect(payment.body).toMatchObject({ gateway: 'gateway_b' });
    const after = await developer.call('gateways.list', { environmentId });
    const fieldsOf = (body: { result: { data: { gateway: string; credentialFields: string[] }[] } }) => body.result.data.find((a) => a.gateway === 'gateway_b')!.credentialFields;
    expect(fieldsOf(after.body)).toEqual(fieldsOf(before.body));
    for (const body of [reply.body, after.body, (await developer.call('gateways.forms', { environmentId })).body]) {
      expect(JSON.stringify(body)).not.toMatch(/key_sim_b_|token_b_/);
    }
  });

  it('rotates one secret alone: the other stays', async () => {
    const reply = await configure({ credentials: { apiKey: 'a_new_api_key_value' } });
    expect(reply.status).toBe(200);
    expect(reply.body.result.data.credentialFields).toEqual(['apiKey', 'webhookToken']);
    expect(JSON.stringify(reply.body)).not.toContain('a_new_api_key_value');
  });
});

describe('the operator CLI', () => {
  it('lists a gateway\'s fields (gateway fields) and names a wrong one before calling, without its value', async () => {
    const fields = await cli(sandboxed.service, ['gateway', 'fields', 'gateway_b']);
    expect(fields.code).toBe(0);
    expect(fields.json.map((field: { name: string; secret: string; minLength: number }) => [field.name, field.secret, field.minLength])).toEqual([
      ['apiKey', 'yes', 8],
      ['webhookToken', 'yes', 16],
    ]);
    const wrong = await cli(sandboxed.service, ['gateway', 'set', '--env', environmentId, '--gateway', 'gateway_b', '--base-url', simUrl, '--credentials', '{"webhookTokn":"cli-secret-value-123"}']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('credentials.webhookTokn: gateway_b takes no credential webhookTokn: its fields are apiKey, webhookToken');
    expect(wrong.stderr).not.toContain('cli-secret-value-123');
    // Nothing given: every stored credential is kept.
    const kept = await cli(sandboxed.service, ['gateway', 'set', '--env', environmentId, '--gateway', 'gateway_b', '--base-url', simUrl]);
    expect(kept.code).toBe(0);
    expect(kept.json).toMatchObject({ gateway: 'gateway_b', credentialFields: ['apiKey', 'webhookToken'] });
  });
});
