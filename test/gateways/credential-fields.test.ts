/**
 * The one description of each gateway's credentials (contract/gateway-credentials.ts),
 * which the dashboard's form, the CLI and gateways.configure use, names
 * exactly the fields its adapter's own schema parses, with the same minimum
 * lengths: an adapter gaining or losing a field fails here until the
 * description follows.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { GATEWAY_NAMES } from '../../server/contract/enums';
import { credentialIssues, GATEWAY_FORMS } from '../../server/contract/gateway-credentials';
import { credentialsSchema as gatewayA } from '../../server/gateways/gateway_a/wire';
import { credentialsSchema as gatewayB } from '../../server/gateways/gateway_b/wire';
import { credentialsSchema as gatewayC } from '../../server/gateways/gateway_c/wire';

const ADAPTER_SCHEMAS = { gateway_a: gatewayA, gateway_b: gatewayB, gateway_c: gatewayC } satisfies Record<(typeof GATEWAY_NAMES)[number], z.ZodObject>;

describe.each(GATEWAY_NAMES)('%s credentials', (gateway) => {
  const schema = ADAPTER_SCHEMAS[gateway];
  const fields = GATEWAY_FORMS[gateway].fields;

  it("describes exactly the adapter schema's fields", () => {
    expect(fields.map((field) => field.name).sort()).toEqual(Object.keys(schema.shape).sort());
  });

  it("holds each field to the adapter's minimum length, and every field has a label and help", () => {
    for (const field of fields) {
      const shape = schema.shape as Record<string, z.ZodString>;
      expect(shape[field.name]!.minLength, field.name).toBe(field.minLength);
      expect(field.label.length, field.name).toBeGreaterThan(0);
      expect(field.help.length, field.name).toBeGreaterThan(0);
    }
  });

  it('accepts what the adapter accepts and names the field of what it refuses, without its value', () => {
    const good = Object.fromEntries(fields.map((field) => [field.name, 'v'.repeat(field.minLength)]));
    expect(schema.safeParse(good).success).toBe(true);
    expect(credentialIssues(gateway, good, [])).toEqual([]);
    for (const field of fields) {
      const bad = { ...good, [field.name]: 'x'.repeat(field.minLength - 1) };
      expect(schema.safeParse(bad).success).toBe(false);
      const issues = credentialIssues(gateway, bad, []);
      expect(issues.map((issue) => issue.path)).toEqual([['credentials', field.name]]);
      expect(JSON.stringify(issues)).not.toContain(bad[field.name]);
    }
  });

  it('keeps a stored field left blank, requires one never set, refuses one the gateway does not take', () => {
    const [first] = fields;
    expect(credentialIssues(gateway, { [first!.name]: '' }, fields.map((field) => field.name))).toEqual([]);
    expect(credentialIssues(gateway, {}, []).map((issue) => issue.path[1])).toEqual(fields.map((field) => field.name));
    const stored = fields.map((field) => field.name);
    expect(credentialIssues(gateway, { webhookTokn: 'a-long-enough-value' }, stored)).toEqual([
      { path: ['credentials', 'webhookTokn'], message: expect.stringMatching(new RegExp(`^${gateway} takes no credential webhookTokn: its fields are `)) },
    ]);
  });
});
