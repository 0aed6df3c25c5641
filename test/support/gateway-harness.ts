/** Starts a gateway simulator and its adapter on ephemeral ports, with short timeouts. */
import { expect } from 'vitest';
import type { GatewayName } from '../../server/contract/enums';
import type { ApiError } from '../../server/contract/errors';
import { refusalOf } from '../../server/domain/gateway-calls';
import { GatewayFailure } from '../../server/gateways/errors';
import { toApiError } from '../../server/http/error-translation';
import type { GatewayAdapter, GatewayCustomer } from '../../server/gateways/adapter';
import { createGatewayAdapter } from '../../server/gateways/index';
import { gatewaySimulators, type GatewaySimulator } from '../../server/sandbox/simulators';

export const CREDENTIALS = {
  gateway_a: { secretKey: 'sk_sim_a_0123456789', webhookSecret: 'whsec_a_0123456789' },
  gateway_b: { apiKey: 'key_sim_b_0123456789', webhookToken: 'token_b_0123456789abcdef' },
  gateway_c: { apiKey: 'ck_sim_c_0123456789', apiSecret: 'cs_sim_c_0123456789', webhookSecret: 'whsec_c_0123456789' },
} as const;

export const TEST_TIMEOUTS = { connectMs: 300, totalMs: 300 };
/** For tests of what a gateway answers, not of how its faults end: a busy machine's slow answer is not a timeout. */
export const PATIENT_TIMEOUTS = { connectMs: 5_000, totalMs: 10_000 };

/** Valid everywhere: gateway_c needs the phone for card and subscriptions. */
export const CUSTOMER: GatewayCustomer = {
  name: 'Ana Souza',
  email: 'ana@example.com',
  document: '12345678909',
  phone: '11987654321',
};

export interface GatewayUnderTest {
  name: GatewayName;
  sim: GatewaySimulator;
  adapter: GatewayAdapter;
  close(): Promise<void>;
}

/** `timeouts`: the adapter's (TEST_TIMEOUTS by default, short so faults end fast; longer where a loaded machine must not look like a fault). */
export async function startGateway(name: GatewayName, options: { webhookUrl?: string; timeouts?: typeof TEST_TIMEOUTS } = {}): Promise<GatewayUnderTest> {
  const start = gatewaySimulators[name] as (options: { credentials: unknown; webhookUrl?: string }) => Promise<GatewaySimulator>;
  const sim = await start({ credentials: CREDENTIALS[name], webhookUrl: options.webhookUrl });
  const adapter = createGatewayAdapter(name, { baseUrl: sim.url, credentials: CREDENTIALS[name], timeouts: options.timeouts ?? TEST_TIMEOUTS });
  return {
    name,
    sim,
    adapter,
    close: async () => {
      await adapter.close();
      await sim.close();
    },
  };
}

/** The method every gateway supports, so shared tests run on all three. */
export const COMMON_METHOD = 'card' as const;

export function subscriptionInput(name: GatewayName, key: string, trialDays = 0) {
  return {
    idempotencyKey: key,
    amount: 2990,
    interval: 'monthly' as const,
    trialDays,
    customer: CUSTOMER,
    planId: name === 'gateway_c' ? (trialDays > 0 ? 'plan_monthly_trial' : 'plan_monthly_basic') : undefined,
  };
}

/** Asserts the call failed, and that the /v1 answer it would give the merchant has this code and these extra fields. */
export async function expectApiError(promise: Promise<unknown>, code: string, extra?: Record<string, unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  // The adapter fails in the gateway layer's terms; what the merchant gets is the core's translation of it.
  expect(error).toBeInstanceOf(GatewayFailure);
  const apiError = toApiError(refusalOf(error as GatewayFailure));
  expect(apiError.code).toBe(code);
  if (extra) expect(apiError.extra).toEqual(extra);
  return apiError;
}

/** Fails the test if the promise has not settled within the bound (a hang must be cut by our timeouts). */
export async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<PromiseSettledResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'unsettled'>((resolve) => {
    timer = setTimeout(() => resolve('unsettled'), ms);
  });
  const settled = Promise.allSettled([promise]).then(([result]) => result!);
  const outcome = await Promise.race([settled, bound]);
  clearTimeout(timer);
  if (outcome === 'unsettled') throw new Error(`promise did not settle within ${ms} ms`);
  return outcome;
}
