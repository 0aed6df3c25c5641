import { ApiError } from '../contract/errors';
import type { RoutingMethod } from '../contract/enums';
import type { Environment } from '../db/entities';

/**
 * Routing picks one gateway per environment and method (PIX, CARD,
 * SUBSCRIPTION). No environment can hold a routing rule yet (rules and gateway
 * credentials arrive with the gateway layer), so every request that passes
 * validation and billing ends here with 409 `no_routing_rule`, which is what
 * the contract says for an environment without a rule for the method.
 */
export async function resolveRoute(environment: Environment, method: RoutingMethod): Promise<never> {
  throw new ApiError('no_routing_rule', {}, `No gateway is configured for ${method} in environment ${environment.id}.`);
}
