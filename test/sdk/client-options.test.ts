/** Construction rules of PaymentsClient: the key is checked and never shown. */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PaymentsClient } from '../../sdk/src/index';

const apiKey = 'sk_live_abcdefghijklmnopqrstuvwxyz012345';

describe('PaymentsClient', () => {
  it('refuses a key without the sk_test_/sk_live_ prefix, without echoing it', () => {
    for (const bad of ['pk_test_123', 'sk_prod_123', 'Bearer sk_test_123', 'sk_test_', '', 'sk_test_abc def']) {
      let message = '';
      try {
        new PaymentsClient({ apiKey: bad, baseUrl: 'https://payments.example.com' });
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
        message = (error as Error).message;
      }
      expect(message).toMatch(/sk_test_.*sk_live_/);
      if (bad.length > 8) expect(message).not.toContain(bad);
    }
  });

  it('refuses a base URL that is not absolute http(s), and bad retry settings', () => {
    expect(() => new PaymentsClient({ apiKey, baseUrl: 'payments.example.com' })).toThrow(/baseUrl/);
    expect(() => new PaymentsClient({ apiKey, baseUrl: 'ftp://payments.example.com' })).toThrow(/baseUrl/);
    expect(() => new PaymentsClient({ apiKey, baseUrl: 'https://payments.example.com', maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => new PaymentsClient({ apiKey, baseUrl: 'https://payments.example.com', timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('never shows the key: not in console.log/inspect, JSON, own properties or string forms', () => {
    const client = new PaymentsClient({ apiKey, baseUrl: 'https://payments.example.com/' });
    expect(client.environment).toBe('production');
    expect(client.baseUrl).toBe('https://payments.example.com');
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(apiKey);
    expect(JSON.stringify(client)).not.toContain(apiKey);
    expect(JSON.parse(JSON.stringify(client))).toEqual({ baseUrl: 'https://payments.example.com', environment: 'production', apiKey: '[redacted]' });
    expect(JSON.stringify(Object.getOwnPropertyNames(client).map((name) => inspect((client as unknown as Record<string, unknown>)[name], { depth: 10, showHidden: true })))).not.toContain(apiKey);
    expect(`${client}`).not.toContain(apiKey);
  });
});

describe('resource methods', () => {
  it('reject (rather than throw) on an empty id, before any request', async () => {
    const client = new PaymentsClient({ apiKey, baseUrl: 'http://127.0.0.1:9' });
    const pending = client.payments.get('');
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toThrow(TypeError);
    await expect(client.subscriptions.cancel('')).rejects.toThrow(/id is required/);
  });
});
