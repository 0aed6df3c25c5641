import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let sandbox: TestTenant;

beforeAll(async () => {
  service = await startTestService();
  sandbox = await createTenant(service, 'sandbox');
});
afterAll(() => service?.stop());

const authTest = (headers: Record<string, string>) => call(service.url, 'GET', '/v1/auth/test', { headers });

describe('GET /v1/auth/test', () => {
  it('answers with the key, environment, project and organization', async () => {
    const reply = await authTest({ authorization: `Bearer ${sandbox.apiKey}` });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      ok: true,
      organization: { id: sandbox.organizationId },
      project: { id: sandbox.projectId },
      environment: { id: sandbox.environmentId, kind: 'sandbox' },
      apiKey: { id: sandbox.apiKeyId },
    });
  });

  it('a live key selects the production environment', async () => {
    const production = await createTenant(service, 'production');
    expect(production.apiKey).toMatch(/^sk_live_/);
    const reply = await authTest({ authorization: `Bearer ${production.apiKey}` });
    expect(reply.body.environment).toEqual({ id: production.environmentId, kind: 'production' });
  });

  it.each([
    ['no header', {}],
    ['empty header', { authorization: '' }],
    ['two spaces', { authorization: 'Bearer  sk_test_' + 'a'.repeat(32) }],
    ['trailing space', { authorization: 'Bearer sk_test_' + 'a'.repeat(32) + ' ' }],
    ['keyword only', { authorization: 'Bearer' }],
    ['basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['malformed key', { authorization: 'Bearer pk_test_abc' }],
    ['unknown key', { authorization: 'Bearer sk_test_' + 'a'.repeat(32) }],
  ])('401 unauthorized for %s', async (_case, headers) => {
    const reply = await authTest(headers as Record<string, string>);
    expect(reply.status).toBe(401);
    expect(reply.body.error).toBe('unauthorized');
    expect(Object.keys(reply.body).sort()).toEqual(['error', 'message']);
  });

  it('the scheme name is case-insensitive (RFC 7235): bearer and BEARER authenticate too', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const reply = await authTest({ authorization: `${scheme} ${sandbox.apiKey}` });
      expect(reply.status).toBe(200);
      expect(reply.body.apiKey).toEqual({ id: sandbox.apiKeyId });
    }
  });

  it('a real key with its prefix swapped is refused', async () => {
    const swapped = sandbox.apiKey.replace('sk_test_', 'sk_live_');
    expect((await authTest({ authorization: `Bearer ${swapped}` })).status).toBe(401);
  });

  it('never reads the key from the query string', async () => {
    const reply = await call(service.url, 'GET', `/v1/auth/test?api_key=${sandbox.apiKey}&key=${sandbox.apiKey}`);
    expect(reply.status).toBe(401);
  });

  it('several keys are active at once, and a revoked key stops at once while the others keep working', async () => {
    const second = await service.admin.apiKeys.create({ environmentId: sandbox.environmentId, name: 'second' });
    expect((await authTest({ authorization: `Bearer ${second.secret}` })).status).toBe(200);
    expect((await authTest({ authorization: `Bearer ${sandbox.apiKey}` })).status).toBe(200);

    await service.admin.apiKeys.revoke({ apiKeyId: second.id });
    const revoked = await authTest({ authorization: `Bearer ${second.secret}` });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe('unauthorized');
    expect((await authTest({ authorization: `Bearer ${sandbox.apiKey}` })).status).toBe(200);
  });

  it('records when a key was last used', async () => {
    const fresh = await service.admin.apiKeys.create({ environmentId: sandbox.environmentId });
    expect(fresh.lastUsedAt).toBeNull();
    await authTest({ authorization: `Bearer ${fresh.secret}` });
    const listed = await service.admin.apiKeys.list({ environmentId: sandbox.environmentId });
    expect(listed.find((k) => k.id === fresh.id)?.lastUsedAt).not.toBeNull();
  });
});

describe('401 comes before everything else', () => {
  it('an unauthenticated create with a broken body is 401, not 400', async () => {
    const reply = await call(service.url, 'POST', '/v1/payments', { rawBody: '{oops', headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(401);
  });
});
