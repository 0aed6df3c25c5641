/**
 * The monthly quota's admission on its own (domain/quota.ts), on the real
 * database: admissions up to the limit, releases, one externalId counted
 * once, and a counter left high by a create that died.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit, usagePeriod, type QuotaAdmission, type QuotaDecision, type QuotaRequest } from '../../server/domain/quota';
import { eventually } from '../support/outbox-events';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const RECONCILE_AFTER_MS = 60_000;

/** A fresh organization (its own counter), and a request builder on a clock the test moves. */
async function organization(limit: number) {
  const tenant: TestTenant = await createTenant(service);
  let now = new Date();
  // `tried` hears each try of the admission (each try begins by reading the clock).
  const request = (externalId: string, tried?: () => void): QuotaRequest => ({
    organizationId: tenant.organizationId,
    period: usagePeriod(now),
    limit,
    environmentId: tenant.environmentId,
    externalId,
    clock: () => {
      tried?.();
      return now;
    },
    reconcileAfterMs: RECONCILE_AFTER_MS,
  });
  return {
    admit: (externalId: string, tried?: () => void) => admit(service.services.db.fork(), request(externalId, tried)),
    later: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

const admitted = (decision: QuotaDecision): QuotaAdmission => {
  expect(typeof decision).toBe('object');
  return decision as QuotaAdmission;
};

describe('quota counters', () => {
  it('admits up to the limit, then refuses', async () => {
    const org = await organization(2);
    admitted(await org.admit('a'));
    admitted(await org.admit('b'));
    expect(await org.admit('c')).toBe('refused');
  });

  it('gives room back on release, once however often it is released', async () => {
    const org = await organization(1);
    const first = admitted(await org.admit('a'));
    expect(await org.admit('b')).toBe('refused');
    await first.release();
    await first.release();
    admitted(await org.admit('b'));
    expect(await org.admit('c')).toBe('refused');
  });

  it('counts concurrent admissions exactly: never more than the limit', async () => {
    const org = await organization(5);
    const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => org.admit(`race-${i}`)));
    expect(decisions.filter((decision) => typeof decision === 'object')).toHaveLength(5);
    expect(decisions.filter((decision) => decision === 'refused')).toHaveLength(7);
  });

  it('counts one externalId once: a second create waits for the first, and is admitted itself when the first gives up', async () => {
    const org = await organization(1);
    const first = admitted(await org.admit('same'));
    let settled = false;
    let tries = 0;
    const second = org.admit('same', () => tries++).finally(() => {
      settled = true;
    });
    // The second has found the claim held and tried again, three times, and still waits.
    await eventually(async () => tries >= 3, 15_000, 'three tries of the second create');
    expect(settled).toBe(false);
    await first.release();
    admitted(await second);
  });

  it('reconciles a counter left high by a create that died, once nothing was admitted for longer than a registration takes', async () => {
    const org = await organization(1);
    // Admitted, then the process died: never inserted, never released.
    admitted(await org.admit('died'));
    expect(await org.admit('next')).toBe('refused');
    org.later(RECONCILE_AFTER_MS + 1_000);
    admitted(await org.admit('next'));
    expect(await org.admit('after')).toBe('refused');
  });
});
