/**
 * A dashboard user's second factor, enrolled over HTTP as the Security page
 * does it: started with the password, then confirmed with a code computed by
 * test/support/totp.ts.
 */
import { PASSWORD, type Browser } from './dashboard-sessions';
import { totp } from './totp';

/**
 * Enrols the browser's user. `tick` moves the service's clock on a time step
 * and answers the new time (ms): a code's step is accepted once, so each code
 * a test sends comes from a step not used before.
 */
export async function enrolSecondFactor(browser: Browser, tick: () => number, password = PASSWORD): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await browser.call('auth.startSecondFactor', { password }, { mutation: true });
  if (started.status !== 200) throw new Error(`startSecondFactor: ${started.status} ${JSON.stringify(started.body)}`);
  const secret = started.body.result.data.secret as string;
  const confirmed = await browser.call('auth.confirmSecondFactor', { code: totp(secret, tick()) }, { mutation: true });
  if (confirmed.status !== 200) throw new Error(`confirmSecondFactor: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return { secret, recoveryCodes: confirmed.body.result.data.recoveryCodes as string[] };
}
