/** Sessions end after 12 hours without use, and 7 days after they began however busy (the service's clock is moved). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';
import { login, PASSWORD, uniqueEmail } from '../support/dashboard-sessions';

const HOUR = 3600_000;
let service: TestService;
let offset = 0;

beforeAll(async () => {
  service = await startTestService({ now: () => new Date(Date.now() + offset) });
});
afterAll(async () => service?.stop());

async function freshUser() {
  const email = uniqueEmail('clock');
  await service.admin.users.create({ email, password: PASSWORD });
  return login(service, email);
}

describe('session lifetime', () => {
  it('ends after 12 hours without a call', async () => {
    offset = 0;
    const browser = await freshUser();
    offset = 11 * HOUR;
    expect((await browser.call('organizations.list')).status).toBe(200);
    offset = 11 * HOUR + 12 * HOUR + 60_000;
    const late = await browser.call('organizations.list');
    expect(late.status).toBe(401);
    expect(late.body.message).toBe('Your dashboard session has ended; log in again.');
    expect((await browser.call('auth.session')).body.result.data).toBeNull();
  });

  it('ends 7 days after log-in even when used every few hours', async () => {
    offset = 0;
    const browser = await freshUser();
    for (let hours = 10; hours < 7 * 24; hours += 10) {
      offset = hours * HOUR;
      expect((await browser.call('organizations.list')).status, `after ${hours} h`).toBe(200);
    }
    offset = 7 * 24 * HOUR + 60_000;
    expect((await browser.call('organizations.list')).status).toBe(401);
  });
});
