/**
 * Between binding its port and opening its database the service answers
 * every request itself: 503 `service_unavailable` with Retry-After, in the
 * contract's error format, so a client or a load balancer reads it as any
 * other 503 (the SDK retries it) instead of an empty body.
 */
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import type { Config } from '../../server/config';
import { bindPort } from '../../server/runtime/startup';

it('answers 503 service_unavailable with Retry-After and a contract error body while it starts', async () => {
  const bound = await bindPort({ port: 0, host: '127.0.0.1', httpTimeouts: { headersMs: 5_000, requestMs: 10_000, keepAliveMs: 1_000 } } as Config);
  try {
    const { port } = bound.server.address() as AddressInfo;
    const reply = await fetch(`http://127.0.0.1:${port}/v1/payments/pay_0123456789abcdefghijklmn`);
    expect(reply.status).toBe(503);
    expect(reply.headers.get('retry-after')).toBe('1');
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await reply.json()).toEqual({ error: 'service_unavailable', message: 'The service is starting; retry after Retry-After seconds.' });
  } finally {
    await bound.close();
  }
});
