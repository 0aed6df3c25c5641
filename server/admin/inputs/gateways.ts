/** Inputs of the gateway-account and routing procedures. Browser-safe (zod and the contract only). */
import { z } from 'zod';
import { GATEWAY_NAMES, ROUTING_METHODS } from '../../contract/enums';
import { TEXT_LIMITS } from '../../contract/limits';
import { RecordId, text } from '../../contract/schemas/text';

export const EnvironmentRef = z.strictObject({ environmentId: RecordId });

export const ConfigureGatewayInput = EnvironmentRef.extend({
  gateway: z.enum(GATEWAY_NAMES),
  baseUrl: text({ min: 1, max: TEXT_LIMITS.url }).pipe(z.url({ protocol: /^https?$/ })),
  /** Write-only: sealed at rest and never shown again. */
  credentials: z.record(RecordId, z.unknown()),
  enabled: z.boolean().optional(),
});
export const SetGatewayEnabledInput = EnvironmentRef.extend({ gateway: z.enum(GATEWAY_NAMES), enabled: z.boolean() });

export const SetRouteInput = EnvironmentRef.extend({ method: z.enum(ROUTING_METHODS), gateway: z.enum(GATEWAY_NAMES) });
export const RemoveRouteInput = EnvironmentRef.extend({ method: z.enum(ROUTING_METHODS) });
