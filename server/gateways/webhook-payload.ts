/** Reading an authenticated webhook body: anything unexpected is `malformed_payload`, never a crash. */
import type { z } from 'zod';
import type { GatewayName } from '../contract/enums';
import { WebhookRejectedError } from './errors';

export function parseWebhookBody<T>(provider: GatewayName, rawBody: Buffer, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new WebhookRejectedError(provider, 'malformed_payload');
  }
  return parseWebhookObject(provider, json, schema);
}

export function parseWebhookObject<T>(provider: GatewayName, value: unknown, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new WebhookRejectedError(provider, 'malformed_payload');
  return parsed.data;
}
