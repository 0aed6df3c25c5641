/**
 * The gateway layer's front door: build an adapter for a gateway name and its
 * configuration, read a gateway's capabilities without building one, and
 * start the sandbox simulators.
 */
import type { GatewayName } from '../contract/enums';
import type { GatewayAdapter, GatewayAdapterConfig, GatewayAdapterFactory, GatewayCapabilities } from './adapter';
import { GatewayAAdapter, gatewayACapabilities } from './gateway_a/adapter';
import { startGatewayASimulator } from './gateway_a/simulator';
import { GatewayBAdapter, gatewayBCapabilities } from './gateway_b/adapter';
import { startGatewayBSimulator } from './gateway_b/simulator';
import { GatewayCAdapter, gatewayCCapabilities } from './gateway_c/adapter';
import { SEEDED_PLANS, startGatewayCSimulator } from './gateway_c/simulator';

export const gatewayAdapters: Readonly<Record<GatewayName, GatewayAdapterFactory>> = {
  gateway_a: (config) => new GatewayAAdapter(config),
  gateway_b: (config) => new GatewayBAdapter(config),
  gateway_c: (config) => new GatewayCAdapter(config),
};

export const gatewayCapabilities: Readonly<Record<GatewayName, GatewayCapabilities>> = {
  gateway_a: gatewayACapabilities,
  gateway_b: gatewayBCapabilities,
  gateway_c: gatewayCCapabilities,
};

/** Throws GatewayConfigError (naming fields, never values) when the credentials do not fit the gateway. */
export const createGatewayAdapter = (name: GatewayName, config: GatewayAdapterConfig): GatewayAdapter =>
  gatewayAdapters[name](config);

export const gatewaySimulators = {
  gateway_a: startGatewayASimulator,
  gateway_b: startGatewayBSimulator,
  gateway_c: startGatewayCSimulator,
} as const;

export { startGatewayASimulator, startGatewayBSimulator, startGatewayCSimulator, SEEDED_PLANS as gatewayCSeededPlans };
export type * from './adapter';
export type { GatewayTimeouts } from './http-client';
export type { GatewaySimulator, SimulatorOptions, SimulatorStats } from './simulator/control';
export type { Fault, SimOperation } from './simulator/faults';
export type { WebhookDelivery } from './simulator/webhooks';
export { GatewayConfigError, WebhookRejectedError, type WebhookRejection } from './errors';
