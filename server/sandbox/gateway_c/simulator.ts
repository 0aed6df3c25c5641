/** In-memory gateway_c speaking gateways/gateway_c/PROTOCOL.md over real HTTP, with the common `/_sim/` control surface: its state, wire routes and actions, started together. */
import { launchSimulator, type GatewaySimulator, type SimulatorOptions } from '../simulator/control';
import { credentialsSchema, type GatewayCCredentials } from '../../gateways/gateway_c/wire';
import { actionsOf } from './actions';
import { apiRoutes, pageRoutes, protocolOf } from './routes';
import { GatewayCState } from './state';

export async function startGatewayCSimulator(options: SimulatorOptions<GatewayCCredentials>): Promise<GatewaySimulator> {
  const state = new GatewayCState(credentialsSchema.parse(options.credentials), options.webhookUrl ?? null);
  const actions = actionsOf(state);
  return launchSimulator(options, state, {
    protocol: protocolOf(state),
    api: apiRoutes(state, actions),
    pages: (handle) => pageRoutes(state, handle),
    actions,
  });
}
