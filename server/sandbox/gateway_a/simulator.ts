/** In-memory gateway_a speaking gateways/gateway_a/PROTOCOL.md over real HTTP, with the common `/_sim/` control surface: its state, wire routes and actions, started together. */
import { buildHandle, controlRoutes, type GatewaySimulator, type SimulatorOptions } from '../simulator/control';
import { startSimServer } from '../simulator/server';
import { credentialsSchema, type GatewayACredentials } from '../../gateways/gateway_a/wire';
import { actionsOf } from './actions';
import { apiRoutes, pageRoutes, protocolOf } from './routes';
import { GatewayAState } from './state';

export async function startGatewayASimulator(options: SimulatorOptions<GatewayACredentials>): Promise<GatewaySimulator> {
  const state = new GatewayAState(credentialsSchema.parse(options.credentials), options.webhookUrl ?? null);
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
