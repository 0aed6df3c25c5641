/** In-memory gateway_c speaking gateways/gateway_c/PROTOCOL.md over real HTTP, with the common `/_sim/` control surface: its state, wire routes and actions, started together. */
import { buildHandle, controlRoutes, type GatewaySimulator, type SimulatorOptions } from '../simulator/control';
import { startSimServer } from '../simulator/server';
import { credentialsSchema, type GatewayCCredentials } from '../../gateways/gateway_c/wire';
import { actionsOf } from './actions';
import { apiRoutes, pageRoutes, protocolOf } from './routes';
import { GatewayCState } from './state';

export async function startGatewayCSimulator(options: SimulatorOptions<GatewayCCredentials>): Promise<GatewaySimulator> {
  const state = new GatewayCState(credentialsSchema.parse(options.credentials), options.webhookUrl ?? null);
  const actions = actionsOf(state);
  let handle: GatewaySimulator | undefined;
  const server = await startSimServer({
    port: options.port,
    host: options.host,
    protocol: protocolOf(state),
    routes: [...apiRoutes(state, actions), ...pageRoutes(state, () => handle!), ...controlRoutes(() => handle!)],
  });
  state.baseUrl = server.url;
  handle = buildHandle(server, state.webhooks, actions, () => ({ ...state.created }));
  return handle;
}
