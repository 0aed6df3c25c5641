import type { z } from 'zod';
import type { GatewayName } from '../contract/enums';
import { GatewayConfigError } from './errors';

/** Validates a gateway's credentials without echoing any value in the error. */
export function parseCredentials<S extends z.ZodType>(provider: GatewayName, schema: S, credentials: unknown): z.infer<S> {
  const parsed = schema.safeParse(credentials);
  if (!parsed.success) {
    throw new GatewayConfigError(provider, [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))]);
  }
  return parsed.data;
}
