/**
 * The embedded default's sandbox gateways: simulators run inside the service
 * process and every sandbox environment's gateway accounts point at
 * simulators of its own (fleet.ts), so a newcomer, or a merchant onboarded
 * from the dashboard, takes a payment from pending to paid without any
 * gateway account. Simulator credentials are generated once and kept
 * (sealed) in the accounts; the simulators' state lives in memory only.
 */
import type { GatewayName, RoutingMethod } from '../contract/enums';
import type { SandboxSimulators } from '../domain/sandbox-seam';
import type { Services } from '../services';
import { SimulatorFleet } from './fleet';

/** First-start routing of the demo: each gateway shows a different side of the product. */
const DEMO_ROUTES: Record<RoutingMethod, GatewayName> = { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' };

/** Wires the demo environment first (the primary: the banner's gateways), then every other sandbox environment, and answers the seam. */
export async function startDemoGateways(services: Services, environmentId: string): Promise<SandboxSimulators> {
  const fleet = new SimulatorFleet(services);
  try {
    await fleet.wire(environmentId, DEMO_ROUTES);
    await fleet.wireExisting();
  } catch (error) {
    await fleet.close();
    throw error;
  }
  return fleet.seam();
}
