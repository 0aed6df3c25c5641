/** In-memory gateway_b speaking gateways/gateway_b/PROTOCOL.md over real HTTP, with the common `/_sim/` control surface: its state, wire routes and actions, started together. */
import { warmUpQr } from '../simulator/brcode';
import { buildHandle, controlRoutes, type GatewaySimulator, type SimulatorOptions } from '../simulator/control';
import { startSimServer } from '../simulator/server';
import { credentialsSchema, type GatewayBCredentials } from '../../gateways/gateway_b/wire';
import { actionsOf } from './actions';
import { apiRoutes, pageRoutes, protocolOf } from './routes';
import { GatewayBState } from './state';

export async function startGatewayBSimulator(options: SimulatorOptions<GatewayBCredentials>): Promise<GatewaySimulator> {
  const state = new GatewayBState(credentialsSchema.parse(options.credentials), options.webhookUrl ?? null);
  await warmUpQr();
  let handle: GatewaySimulator | undefined;
  const server = await startSimServer({
    port: options.port,
    host: options.host,
    protocol: protocolOf(state),
    routes: [...apiRoutes(state), ...pageRoutes(state, () => handle!), ...controlRoutes(() => handle!)],
  });
  state.baseUrl = server.url;
  handle = buildHandle(server, state.webhooks, actionsOf(state), () => ({ ...state.created }));
  return handle;
}
