/**
 * The gateway layer's front door: build an adapter for a gateway name and its
 * configuration, and read a gateway's capabilities without building one. The
 * sandbox simulators have their own entry point (sandbox.ts).
 */
import type { GatewayName } from '../contract/enums';
import type { GatewayAdapter, GatewayAdapterConfig, GatewayAdapterFactory, GatewayCapabilities } from './adapter';
import { GatewayAAdapter, gatewayACapabilities } from './gateway_a/adapter';
import { GatewayBAdapter, gatewayBCapabilities } from './gateway_b/adapter';
import { GatewayCAdapter, gatewayCCapabilities } from './gateway_c/adapter';

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

export type * from './adapter';
export type { GatewayTimeouts, GatewayTransport } from './http-client';
export { GatewayConfigError, GatewayFailure, WebhookRejectedError, type GatewayFailureKind, type TransportFailure, type WebhookRejection } from './errors';
