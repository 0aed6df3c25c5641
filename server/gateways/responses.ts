/**
 * Turning a gateway's HTTP answer into a value or into our error: 2xx must
 * match the documented shape, a 422-style refusal on a field we know becomes
 * `invalid_input` on our request path, anything else is `gateway_error`.
 */
import type { z } from 'zod';
import type { GatewayName } from '../contract/enums';
import type { ValidationIssue } from '../contract/errors';
import { GatewayFailure } from './errors';
import type { GatewayResponse } from './http-client';

/** A gateway field we can blame on the merchant's request, with our own wording (never the gateway's echo). */
export interface FieldMapping {
  path: (string | number)[];
  message: string;
}

/** A refusal as the gateway worded it: its field names only. */
export type RefusedFields = string[];

export function expectAnswer<T>(
  provider: GatewayName,
  response: GatewayResponse,
  schema: z.ZodType<T>,
  what: string,
  refusal?: { fields: (body: unknown) => RefusedFields | null; map: Readonly<Record<string, FieldMapping>> },
): T {
  if (response.status >= 200 && response.status < 300) {
    const parsed = schema.safeParse(response.body);
    if (parsed.success) return parsed.data;
    throw GatewayFailure.unavailable(provider, `${what} answered ${response.status} with an unexpected shape`);
  }
  if (response.status === 422 && refusal) {
    const issues = mapRefusal(refusal.fields(response.body), refusal.map);
    if (issues) throw GatewayFailure.refused(provider, issues);
  }
  throw GatewayFailure.answered(provider, what, response.status);
}

/**
 * A read of one resource by the gateway's reference: as expectAnswer, except
 * that not found means the gateway does not know it (`missing`), which no
 * retry will change.
 */
export function expectFound<T>(provider: GatewayName, response: GatewayResponse, schema: z.ZodType<T>, what: string): T {
  if (response.status === 404) throw GatewayFailure.missing(provider, what);
  return expectAnswer(provider, response, schema, what);
}

/** null unless every refused field is one we can attribute to the request. */
function mapRefusal(fields: RefusedFields | null, map: Readonly<Record<string, FieldMapping>>): ValidationIssue[] | null {
  if (!fields || fields.length === 0) return null;
  const issues: ValidationIssue[] = [];
  for (const field of fields) {
    const mapping = Object.hasOwn(map, field) ? map[field] : undefined;
    if (!mapping) return null;
    issues.push({ path: [...mapping.path], message: mapping.message });
  }
  return issues;
}

export const unixToIso = (seconds: number | null): string | null =>
  seconds === null ? null : new Date(seconds * 1000).toISOString();
