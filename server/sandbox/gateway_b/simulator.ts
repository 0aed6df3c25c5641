/** In-memory gateway_b speaking gateways/gateway_b/PROTOCOL.md over real HTTP, with the common `/_sim/` control surface: its state, wire routes and actions, started together. */
import { warmUpQr } from '../simulator/brcode';
import { launchSimulator, type GatewaySimulator, type SimulatorOptions } from '../simulator/control';
import { credentialsSchema, type GatewayBCredentials } from '../../gateways/gateway_b/wire';
import { actionsOf } from './actions';
import { apiRoutes, pageRoutes, protocolOf } from './routes';
import { GatewayBState } from './state';

export async function startGatewayBSimulator(options: SimulatorOptions<GatewayBCredentials>): Promise<GatewaySimulator> {
  const state = new GatewayBState(credentialsSchema.parse(options.credentials), options.webhookUrl ?? null);
  await warmUpQr();
  const actions = actionsOf(state);
  return launchSimulator(options, state, {
    protocol: protocolOf(state),
    api: apiRoutes(state),
    pages: (handle) => pageRoutes(state, handle),
    actions,
  });
}
