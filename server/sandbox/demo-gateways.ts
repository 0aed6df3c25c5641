/**
 * The embedded default's sandbox gateways: the three simulators run inside
 * the service process and the demo environment's gateway accounts point at
 * them, so a newcomer can take a payment from pending to paid without any
 * gateway account. Simulator credentials are generated once and kept (sealed)
 * in the demo accounts; the simulators' state lives in memory only.
 */
import { randomBytes } from 'node:crypto';
import { adminContext } from '../admin/procedure';
import { adminRouter } from '../admin/router';
import { GATEWAY_NAMES, type GatewayName, type RoutingMethod } from '../contract/enums';
import { GatewayAccount } from '../db/entities';
import type { SandboxSimulators } from '../domain/sandbox-seam';
import { inProcessSandbox } from './in-process';
import { gatewaySimulators } from './simulators';
import type { GatewaySimulator } from './simulator/control';
import type { Services } from '../services';

const token = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

const NEW_CREDENTIALS: Record<GatewayName, () => Record<string, string>> = {
  gateway_a: () => ({ secretKey: token('sk_sim_a'), webhookSecret: token('whsec_a') }),
  gateway_b: () => ({ apiKey: token('key_sim_b'), webhookToken: token('token_b') }),
  gateway_c: () => ({ apiKey: token('ck_sim_c'), apiSecret: token('cs_sim_c'), webhookSecret: token('whsec_c') }),
};

/** First-start routing of the demo: each gateway shows a different side of the product. */
const DEMO_ROUTES: Record<RoutingMethod, GatewayName> = { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' };

/** Starts the three simulators, points the demo environment's accounts at them, and answers the seam that drives them. */
export async function startDemoGateways(services: Services, environmentId: string): Promise<SandboxSimulators> {
  const admin = adminRouter.createCaller(adminContext(services));
  const em = services.db.fork();
  const existing = new Map((await em.find(GatewayAccount, { environment: environmentId })).map((a) => [a.gateway, a]));
  const simulators = {} as Record<GatewayName, GatewaySimulator>;
  for (const gateway of GATEWAY_NAMES) {
    const account = existing.get(gateway);
    const credentials = account ? services.secrets.openJson<Record<string, string>>(account.credentialsSealed) : NEW_CREDENTIALS[gateway]();
    const start = gatewaySimulators[gateway] as (options: { credentials: unknown }) => Promise<GatewaySimulator>;
    const simulator = await start({ credentials });
    simulators[gateway] = simulator;
    // Ports change on every start: point the account at this run's simulator.
    const configured = await admin.gateways.configure({ environmentId, gateway, baseUrl: simulator.url, credentials });
    simulator.setWebhookUrl(configured.webhookUrl);
  }
  if ((await admin.routing.list({ environmentId })).length === 0) {
    for (const [method, gateway] of Object.entries(DEMO_ROUTES)) await admin.routing.set({ environmentId, method: method as RoutingMethod, gateway });
  }
  return inProcessSandbox(simulators);
}
