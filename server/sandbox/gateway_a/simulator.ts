/** In-memory gateway_a speaking gateways/gateway_a/PROTOCOL.md over real HTTP, with the common `/_sim/` control surface: its state, wire routes and actions, started together. */
import { launchSimulator, type GatewaySimulator, type SimulatorOptions } from '../simulator/control';
import { credentialsSchema, type GatewayACredentials } from '../../gateways/gateway_a/wire';
import { actionsOf } from './actions';
import { apiRoutes, pageRoutes, protocolOf } from './routes';
import { GatewayAState } from './state';

export async function startGatewayASimulator(options: SimulatorOptions<GatewayACredentials>): Promise<GatewaySimulator> {
  const state = new GatewayAState(credentialsSchema.parse(options.credentials), options.webhookUrl ?? null);
  const actions = actionsOf(state);
  return launchSimulator(options, state, {
    protocol: protocolOf(state),
    api: apiRoutes(state),
    pages: (handle) => pageRoutes(state, handle),
    actions,
  });
}
