/**
 * The three gateway simulators, configured as one environment's gateway
 * accounts through the operator procedures, with their webhooks pointed at
 * the service's inbound endpoints: the service talks to them over real sockets.
 */
import { randomBytes } from 'node:crypto';
import type { GatewayName, RoutingMethod } from '../../server/contract/enums';
import { gatewaySimulators, type GatewaySimulator } from '../../server/sandbox/simulators';
import type { TestService } from './service';

const secret = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export const simulatorCredentials = () => ({
  gateway_a: { secretKey: secret('sk_sim_a'), webhookSecret: secret('whsec_a') },
  gateway_b: { apiKey: secret('key_sim_b'), webhookToken: secret('token_b') },
  gateway_c: { apiKey: secret('ck_sim_c'), apiSecret: secret('cs_sim_c'), webhookSecret: secret('whsec_c') },
});

export interface Sandbox {
  sims: Record<GatewayName, GatewaySimulator>;
  accountIds: Record<GatewayName, string>;
  route(method: RoutingMethod, gateway: GatewayName): Promise<void>;
  close(): Promise<void>;
}

export async function startSandbox(service: TestService, environmentId: string, routes: Partial<Record<RoutingMethod, GatewayName>> = {}): Promise<Sandbox> {
  const credentials = simulatorCredentials();
  const sims = {} as Record<GatewayName, GatewaySimulator>;
  const accountIds = {} as Record<GatewayName, string>;
  for (const gateway of ['gateway_a', 'gateway_b', 'gateway_c'] as const) {
    const start = gatewaySimulators[gateway] as (options: { credentials: unknown }) => Promise<GatewaySimulator>;
    sims[gateway] = await start({ credentials: credentials[gateway] });
    const account = await service.admin.gateways.configure({ environmentId, gateway, baseUrl: sims[gateway].url, credentials: credentials[gateway] });
    accountIds[gateway] = account.id;
    sims[gateway].setWebhookUrl(account.webhookUrl);
  }
  const route = async (method: RoutingMethod, gateway: GatewayName) => {
    await service.admin.routing.set({ environmentId, method, gateway });
  };
  for (const [method, gateway] of Object.entries(routes)) await route(method as RoutingMethod, gateway);
  return {
    sims,
    accountIds,
    route,
    close: async () => {
      await Promise.all(Object.values(sims).map((sim) => sim.close()));
    },
  };
}
