/** Request pieces shared by payment and subscription creation: customer, metadata, amounts, enums. */
import { z } from 'zod';
import { idPattern, type IdPrefix } from '../ids';
import { METADATA_MAX_BYTES, METADATA_MAX_DEPTH, TEXT_LIMITS } from '../limits';
import { NON_DIGIT_TEXT, noControlCharacters, text, textProblem } from './text';

export const digitsOf = (value: string): string => value.replace(/\D/g, '');

export const CustomerInput = z
  .strictObject({
    name: text({ min: 1, max: TEXT_LIMITS.customerName }),
    email: z.email().max(TEXT_LIMITS.customerEmail).meta({ description: 'ASCII only, so its length in characters is its length in bytes.' }),
    document: text({ max: TEXT_LIMITS.customerDocument })
      .min(8)
      .refine((v) => [11, 14].includes(digitsOf(v).length), 'must contain 11 digits (CPF) or 14 digits (CNPJ)')
      .meta({
        description: 'CPF or CNPJ, digits or formatted; punctuation is removed before it is sent to the gateway. Never stored in plaintext.',
        pattern: `^${NON_DIGIT_TEXT}*(?:[0-9]${NON_DIGIT_TEXT}*){11}(?:(?:[0-9]${NON_DIGIT_TEXT}*){3})?$`,
      }),
    phone: text({ max: TEXT_LIMITS.customerPhone })
      .refine((v) => digitsOf(v).length >= 10, 'must contain area code and number, at least 10 digits')
      .meta({ pattern: `^${NON_DIGIT_TEXT}*(?:[0-9]${NON_DIGIT_TEXT}*){10,}$` })
      .nullish()
      .meta({ description: 'Required for card payments routed to gateway_c and for subscriptions routed to gateway_c.' }),
  })
  .meta({ id: 'CustomerInput' });


/**
 * Nesting depth of a JSON value (a flat object is 1, each nested object or
 * array adds 1) and the first string, key or value, that storage would refuse
 * (PostgreSQL's json types reject NUL). Walked with an explicit stack: the
 * value is never trusted to be shallow.
 */
function inspectJson(root: unknown): { depth: number; problem: string | null } {
  let depth = 0;
  const pending: [unknown, number][] = [[root, 0]];
  while (pending.length > 0) {
    const [value, level] = pending.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value, { multiline: true });
      if (problem) return { depth, problem: `strings ${problem}` };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    depth = Math.max(depth, level + 1);
    if (depth > METADATA_MAX_DEPTH) return { depth, problem: null };
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const problem = Array.isArray(value) ? null : textProblem(key, { multiline: true });
      if (problem) return { depth, problem: `keys ${problem}` };
      pending.push([child, level + 1]);
    }
  }
  return { depth, problem: null };
}

export const MetadataInput = z
  .record(z.string().meta({ pattern: noControlCharacters({ multiline: true }) }), z.json().meta({ id: 'JsonValue', description: 'Any JSON value.' }))
  .superRefine((value, ctx) => {
    if (Buffer.byteLength(JSON.stringify(value), 'utf8') > METADATA_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${METADATA_MAX_BYTES} bytes when serialized as JSON` });
    }
    const { depth, problem } = inspectJson(value);
    if (depth > METADATA_MAX_DEPTH) {
      ctx.addIssue({ code: 'custom', message: `must be nested at most ${METADATA_MAX_DEPTH} levels deep` });
    }
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description: `Free JSON object for your own references: at most ${METADATA_MAX_BYTES} bytes serialized and ${METADATA_MAX_DEPTH} levels deep. Do not put personal data or secrets here.`,
  });

/** An instant in responses: ISO 8601 in UTC with milliseconds (`toISOString`). */
export const Timestamp = z.iso.datetime().meta({ description: 'ISO 8601 timestamp (UTC)', example: '2026-11-25T12:00:00.000Z' });

/**
 * A public id in a response: `<prefix>_` and 24 lower-case letters and digits
 * (contract/ids.ts makes every one of them; a path id of another form is
 * refused before any read), so a client can check what it stores.
 */
export const PublicId = (prefix: IdPrefix) => z.string().regex(new RegExp(idPattern(prefix)));

/**
 * An id in a request's path. Its form is documented (the pattern) but not
 * checked here: the use case answers a malformed id with the route's own
 * code (400 `invalid_id` for payments and refunds, 404 `not_found` for
 * subscriptions), which a schema failure (`invalid_input`) would replace.
 */
export const PathId = (prefix: IdPrefix, description: string) => z.string().meta({ description, pattern: idPattern(prefix) });

export const Amount = z.int().positive().meta({ description: 'Integer amount in cents (minor units of BRL).' });
export const Currency = z.literal('BRL').default('BRL').meta({ description: 'Only BRL.' });
export const ExternalId = text({ min: 1, max: TEXT_LIMITS.externalId }).meta({ description: 'Your idempotency identifier, unique per environment.' });

/**
 * Where a gateway's hosted checkout sends the customer afterwards. The schema
 * checks the form (an absolute http(s) URL that storage and gateways accept);
 * whether plain `http://` is allowed depends on the environment, which the
 * use case knows.
 */
/**
 * The written form of a return URL, which the document states as its pattern:
 * `http://` or `https://` (any case), a host part without spaces, `@` or
 * backslashes, then anything but control characters. The URL parser alone
 * would also take forms it repairs (`https:example.com`, a leading space, a
 * backslash for a slash), which the document could not describe.
 */
const RETURN_URL_FORM = '^[hH][tT][tT][pP][sS]?://[^/?#@\\\\\\x00-\\x20\\x7f-\\x9f]+(?:[/?#][^\\x00-\\x1f\\x7f-\\x9f]*)?$';
const RETURN_URL_FORM_REGEX = new RegExp(RETURN_URL_FORM);

export const ReturnUrl = text({ max: TEXT_LIMITS.returnUrl })
  .superRefine((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute https:// URL' });
    } else if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'must not carry a user name or password' });
    } else if (!RETURN_URL_FORM_REGEX.test(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute https:// URL' });
    }
  })
  .meta({
    description:
      'Where the gateway\'s hosted checkout sends the customer after paying, declining or abandoning it (the checkout of a card payment, or of a subscription on gateways that have one). ' +
      'An absolute `https://` URL; `http://` is accepted only for a loopback host (`localhost`, `127.0.0.1`, `[::1]`) in a sandbox environment. ' +
      'Passed to the gateway as it is; a gateway without a hosted checkout ignores it. Your page should read the payment\'s status from this API (or wait for the webhook), never from the return itself.',
    format: 'uri',
    pattern: RETURN_URL_FORM,
  });

/** `?externalId=` of the lookups: the same text rules as the field it looks up (a NUL would reach the database's query). */
export const ExternalIdQuery = z.object({
  externalId: text({ max: TEXT_LIMITS.externalId }).optional().meta({ description: 'Your externalId; required.' }),
});

/** Lower-case enum that also accepts its upper-case spelling and answers lower case. */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const accepted = [...values, ...values.map((v) => v.toUpperCase())] as [string, ...string[]];
  return z.enum(accepted).transform((v) => v.toLowerCase() as T[number]);
}

export const CustomerOutput = z
  .object({
    name: z.string().nullable(),
    email: z.string().nullable(),
    documentLast4: z
      .string()
      .regex(/^[0-9]{4}$/)
      .nullable()
      .meta({ description: 'Last 4 digits of the tax document; the full document is never returned or stored.' }),
  })
  .nullable()
  .meta({ id: 'Customer' });
