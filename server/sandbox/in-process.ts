/**
 * The sandbox seam (domain/sandbox.ts) over simulators running in this
 * process: what the operator asks of a payment or subscription, as calls to
 * its gateway's simulator. A simulator's refusal (a 4xx of its control
 * surface: paying a paid payment) is answered as the reason, for the domain
 * to refuse with; anything else is a failure.
 */
import type { GatewayName } from '../contract/enums';
import type { PaymentOutcome, RefundOutcome, SubscriptionOutcome } from '../contract/sandbox-controls';
import type { SandboxSimulators } from '../domain/sandbox-seam';
import type { GatewaySimulator } from './simulator/control';
import { SimControlError } from './simulator/server';

type Simulators = Partial<Record<GatewayName, GatewaySimulator>>;

const PAYMENT_ACTIONS: Record<PaymentOutcome, (simulator: GatewaySimulator, ref: string) => Promise<unknown>> = {
  pay: (simulator, ref) => simulator.payPayment(ref),
  decline: (simulator, ref) => simulator.declinePayment(ref),
  expire: (simulator, ref) => simulator.expirePayment(ref),
};

const SUBSCRIPTION_ACTIONS: Record<SubscriptionOutcome, (simulator: GatewaySimulator, ref: string) => Promise<unknown>> = {
  'complete-checkout': (simulator, ref) => simulator.completeCheckout(ref),
  renew: (simulator, ref) => simulator.renewSubscription(ref),
  'charge-failure': (simulator, ref) => simulator.failSubscriptionCharge(ref),
  'past-due': (simulator, ref) => simulator.markPastDue(ref),
  'end-trial': (simulator, ref) => simulator.endTrial(ref),
};

const REFUND_ACTIONS: Record<RefundOutcome, (simulator: GatewaySimulator, ref: string) => Promise<unknown>> = {
  settle: (simulator, ref) => simulator.settleRefund(ref),
  fail: (simulator, ref) => simulator.failRefund(ref),
};

export function inProcessSandbox(simulators: Simulators): SandboxSimulators {
  const simulator = (gateway: GatewayName): GatewaySimulator => {
    const found = simulators[gateway];
    if (!found) throw new Error(`no ${gateway} simulator runs in this process`);
    return found;
  };
  /** Acts, then waits for the webhooks it queued; the simulator's refusal is the reason. */
  const act = async (gateway: GatewayName, action: (simulator: GatewaySimulator) => Promise<unknown>): Promise<string | null> => {
    const target = simulator(gateway);
    try {
      await action(target);
    } catch (error) {
      if (error instanceof SimControlError && error.status >= 400 && error.status < 500) return error.message;
      throw error;
    }
    await target.flushWebhooks();
    return null;
  };
  return {
    running: () => Object.entries(simulators).map(([gateway, running]) => ({ gateway: gateway as GatewayName, url: running.url })),
    payment: (gateway, ref, outcome) => act(gateway, (target) => PAYMENT_ACTIONS[outcome](target, ref)),
    subscription: (gateway, ref, outcome) => act(gateway, (target) => SUBSCRIPTION_ACTIONS[outcome](target, ref)),
    refund: (gateway, ref, outcome) => act(gateway, (target) => REFUND_ACTIONS[outcome](target, ref)),
    refundSettlement: (gateway, mode) => simulator(gateway).setRefundSettlement(mode),
    injectFault: (gateway, operation, fault, times) => simulator(gateway).injectFault(operation, fault, times),
    clearFaults: (gateway) => simulator(gateway).clearFaults(),
    replayWebhooks: async (gateway, options) => (await simulator(gateway).replayWebhooks(options)).map((delivery) => delivery.event),
    close: async () => {
      await Promise.all(Object.values(simulators).map((running) => running.close()));
    },
  };
}
