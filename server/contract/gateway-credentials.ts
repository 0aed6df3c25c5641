/**
 * What each gateway's account is configured with, described once for every
 * reader: the server checks gateways.configure against it, the dashboard
 * draws its form from it and the CLI lists and checks it. Browser-safe (zod
 * and the contract only), so it lives in the contract, which the CLI may load.
 *
 * The adapters parse their credentials with their own schemas
 * (server/gateways/<gateway>/wire.ts `credentialsSchema`);
 * test/gateways/credential-fields.test.ts fails when one of them and this
 * description disagree on a field's name or minimum length.
 */
import { z } from 'zod';
import type { ValidationIssue } from './errors';
import type { GatewayName } from './enums';

export interface CredentialField {
  /** The key in the credentials object (the adapter's field). */
  name: string;
  label: string;
  /** Where the merchant finds it, and what it is for. */
  help: string;
  /** Secret: never shown again once saved (every field is stored sealed; only secrets are masked while typed). */
  secret: boolean;
  minLength: number;
}

/**
 * Where a gateway is reached per kind of environment. The three gateways of
 * this service are stand-ins without public hosts: these `.example` names
 * are placeholders an operator replaces with the gateway's published hosts
 * (the outbound guard refuses `.example` in production).
 */
export interface GatewayHosts {
  sandbox: string;
  production: string;
}

export interface GatewayForm {
  fields: readonly CredentialField[];
  hosts: GatewayHosts;
}

export const GATEWAY_FORMS: Record<GatewayName, GatewayForm> = {
  gateway_a: {
    fields: [
      { name: 'secretKey', label: 'Secret key', help: "gateway_a's API secret key, sent as Authorization: Bearer on every call.", secret: true, minLength: 8 },
      { name: 'webhookSecret', label: 'Webhook signing secret', help: 'The secret gateway_a signs its notifications with (Gateway-A-Signature).', secret: true, minLength: 8 },
    ],
    hosts: { sandbox: 'https://sandbox.gateway-a.example', production: 'https://api.gateway-a.example' },
  },
  gateway_b: {
    fields: [
      { name: 'apiKey', label: 'API key', help: "gateway_b's API key, sent as the user of HTTP Basic on every call.", secret: true, minLength: 8 },
      { name: 'webhookToken', label: 'Webhook token', help: 'The token gateway_b sends in X-Webhook-Token with each notification.', secret: true, minLength: 16 },
    ],
    hosts: { sandbox: 'https://sandbox.gateway-b.example', production: 'https://api.gateway-b.example' },
  },
  gateway_c: {
    fields: [
      { name: 'apiKey', label: 'API key', help: "gateway_c's API key (X-Api-Key): it names the account and is not secret on its own.", secret: false, minLength: 8 },
      { name: 'apiSecret', label: 'API secret', help: 'Sent as X-Api-Secret with the API key on every call.', secret: true, minLength: 8 },
      { name: 'webhookSecret', label: 'Webhook signing secret', help: 'The secret gateway_c signs its notifications with (X-Signature-SHA256).', secret: true, minLength: 8 },
    ],
    hosts: { sandbox: 'https://sandbox.gateway-c.example', production: 'https://api.gateway-c.example' },
  },
};

/** One field's value; its messages name the field by its label and never repeat the value. */
export const credentialValueSchema = (field: CredentialField) =>
  z.string({ message: `${field.label} must be text` }).min(field.minLength, `${field.label} must be at least ${field.minLength} characters`);

/**
 * The problems of a configure's `credentials` for `gateway`, each at
 * `credentials.<field>`: a field the gateway does not take; a value too short;
 * a field left out (or blank) that has no stored value to keep (`stored`, the
 * fields already set: blank keeps them). Never echoes a value.
 */
export function credentialIssues(gateway: GatewayName, given: Record<string, unknown>, stored: readonly string[]): ValidationIssue[] {
  const form = GATEWAY_FORMS[gateway];
  const known = form.fields.map((field) => field.name);
  const issues: ValidationIssue[] = [];
  for (const name of Object.keys(given)) {
    if (!known.includes(name)) issues.push({ path: ['credentials', name], message: `${gateway} takes no credential ${name}: its fields are ${known.join(', ')}` });
  }
  for (const field of form.fields) {
    const value = given[field.name];
    if (value === undefined || value === '') {
      if (!stored.includes(field.name)) issues.push({ path: ['credentials', field.name], message: `${field.label} is required` });
      continue;
    }
    const parsed = credentialValueSchema(field).safeParse(value);
    if (!parsed.success) issues.push({ path: ['credentials', field.name], message: parsed.error.issues[0]!.message });
  }
  return issues;
}
