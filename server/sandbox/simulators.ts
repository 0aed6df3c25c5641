/**
 * The sandbox simulators' entry point: an in-memory server per gateway that
 * speaks its wire protocol, with a control surface to drive outcomes. Loaded
 * only when a sandbox runs (the embedded demo, `npm run simulator`, tests);
 * the production service never imports it.
 */
import { startGatewayASimulator } from './gateway_a/simulator';
import { startGatewayBSimulator } from './gateway_b/simulator';
import { startGatewayCSimulator } from './gateway_c/simulator';
import { SEEDED_PLANS } from './gateway_c/state';

export const gatewaySimulators = {
  gateway_a: startGatewayASimulator,
  gateway_b: startGatewayBSimulator,
  gateway_c: startGatewayCSimulator,
} as const;

export { startGatewayASimulator, startGatewayBSimulator, startGatewayCSimulator, SEEDED_PLANS as gatewayCSeededPlans };
export type { GatewaySimulator, SimulatorOptions, SimulatorStats } from './simulator/control';
export type { WebhookDelivery } from './simulator/webhooks';
