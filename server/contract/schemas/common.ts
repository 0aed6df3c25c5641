/** Request pieces shared by payment and subscription creation (spec 2.7, 4.3, 4.8, decision 8). */
import { z } from 'zod';

export const digitsOf = (value: string): string => value.replace(/\D/g, '');

export const CustomerInput = z
  .object({
    name: z.string().min(1).max(255),
    email: z.email().max(255),
    document: z
      .string()
      .min(8)
      .max(32)
      .refine((v) => [11, 14].includes(digitsOf(v).length), 'must contain 11 digits (CPF) or 14 digits (CNPJ)')
      .meta({ description: 'CPF or CNPJ, digits or formatted; punctuation is removed before it is sent to the gateway. Never stored in plaintext.' }),
    phone: z
      .string()
      .max(32)
      .refine((v) => digitsOf(v).length >= 10, 'must contain area code and number, at least 10 digits')
      .nullish()
      .meta({ description: 'Required for card payments routed to gateway_c and for subscriptions routed to gateway_c.' }),
  })
  .meta({ id: 'CustomerInput' });

export const METADATA_MAX_BYTES = 4096;
export const METADATA_MAX_DEPTH = 4;

/** Nesting depth of a JSON value: a flat object is 1, each nested object or array adds 1. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Object.values(value as Record<string, unknown>);
  return 1 + Math.max(0, ...children.map(depthOf));
}

export const MetadataInput = z
  .record(z.string(), z.json().meta({ id: 'JsonValue', description: 'Any JSON value.' }))
  .superRefine((value, ctx) => {
    if (Buffer.byteLength(JSON.stringify(value), 'utf8') > METADATA_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${METADATA_MAX_BYTES} bytes when serialized as JSON` });
    }
    if (depthOf(value) > METADATA_MAX_DEPTH) {
      ctx.addIssue({ code: 'custom', message: `must be nested at most ${METADATA_MAX_DEPTH} levels deep` });
    }
  })
  .meta({
    description: `Free JSON object for your own references: at most ${METADATA_MAX_BYTES} bytes serialized and ${METADATA_MAX_DEPTH} levels deep. Do not put personal data or secrets here.`,
  });

export const Amount = z.int().positive().meta({ description: 'Integer amount in cents (minor units of BRL).' });
export const Currency = z.literal('BRL').default('BRL').meta({ description: 'Only BRL.' });
export const ExternalId = z.string().min(1).max(255).meta({ description: 'Your idempotency identifier, unique per environment.' });

/** Lower-case enum that also accepts its upper-case spelling and answers lower case (decision 9). */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const accepted = [...values, ...values.map((v) => v.toUpperCase())] as [string, ...string[]];
  return z.enum(accepted).transform((v) => v.toLowerCase() as T[number]);
}

export const CustomerOutput = z
  .object({
    name: z.string().nullable(),
    email: z.string().nullable(),
    documentLast4: z.string().nullable().meta({ description: 'Last 4 digits of the tax document; the full document is never returned or stored.' }),
  })
  .nullable()
  .meta({ id: 'Customer' });
