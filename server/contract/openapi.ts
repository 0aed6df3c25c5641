/**
 * The OpenAPI 3.1 document of /v1, generated from the tRPC procedures and then
 * completed with what the generator cannot know: 201 statuses, the contract's
 * one error body and which codes each route answers, rate-limit and request-id
 * headers, the readings of the contract, named request bodies, examples
 * (examples.ts), tags, the root security requirement, licence and contact.
 * The result passes Redocly's and Spectral's OpenAPI rules, and
 * openapi-typescript turns it into types that compile under `tsc --strict`
 * (test/contract/tooling.test.ts).
 */
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AnyRouter } from '@trpc/server';
import type { HeaderObject, SchemaObject } from 'openapi3-ts/oas31';
import { GATEWAY_NAMES, PAYMENT_METHODS } from './enums';
import { ERROR_CATALOGUE, type ErrorCode } from './errors';
import { METADATA_MAX_DEPTH } from './limits';
import { noControlCharacters } from './schemas/text';
import { errorExample, REQUEST_EXAMPLES, RESPONSE_EXAMPLES } from './examples';
import { CONTRACT_READINGS } from './readings';
import { ExternalIdQuery } from './schemas/common';

type Parameter = { in: string; name: string; required?: boolean; schema?: SchemaObject };
type Operation = {
  operationId?: string;
  parameters?: Parameter[];
  tags?: string[];
  security?: unknown[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown; examples?: unknown }> } | { $ref: string };
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};
type RouteMeta = { openapi?: { method: string; path: string }; successStatus?: number; errors?: readonly string[]; rateLimit?: string; idempotentCreate?: true };
type RouteFacts = RouteMeta & { strictInput: boolean; lookup: boolean };

const ERROR_RESPONSE_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'Every error answer. `error` is the stable code to branch on; `message` is free text that may change. Only the extra fields named for the code appear.',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
    message: { type: 'string' },
    issues: { type: 'array', items: { $ref: '#/components/schemas/ValidationIssue' }, description: 'invalid_input only.' },
    provider: { type: 'string', enum: [...GATEWAY_NAMES], description: 'Gateway-related codes.' },
    method: { type: 'string', enum: [...PAYMENT_METHODS], description: 'method_not_supported only.' },
    action: { type: 'string', description: 'not_implemented and action_not_implemented.' },
    status: { type: 'string', description: 'Cancel and refund conflicts: the current status.' },
    paymentId: { type: 'string', description: 'external_id_conflict: the payment the refund of that externalId belongs to.' },
    limit: { type: 'integer', description: 'billing_monthly_tx_limit_reached: the monthly quota.' },
    used: { type: 'integer', description: 'billing_monthly_tx_limit_reached: transactions used this month.' },
  },
};

const VALIDATION_ISSUE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['path', 'message'],
  additionalProperties: false,
  properties: {
    path: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
    message: { type: 'string' },
  },
};

const HEADERS: Record<'X-Request-Id' | 'X-RateLimit-Limit' | 'X-RateLimit-Remaining' | 'X-RateLimit-Reset' | 'Retry-After' | 'Idempotent-Replayed', HeaderObject> = {
  'X-Request-Id': { description: 'Id of this request, also in the service logs.', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per one-minute window for this key and route.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time in seconds when the current window resets.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: '`true` when the answer is a resource that already existed for this `externalId` (nothing new was created); absent on a new resource.',
    schema: { type: 'string', enum: ['true'] },
  },
};

function headerRefs(names: (keyof typeof HEADERS)[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function errorResponses(codes: readonly string[], authenticated: boolean): Operation['responses'] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes as ErrorCode[]) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Operation['responses'] = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: (keyof typeof HEADERS)[] = ['X-Request-Id'];
    // A 401 comes before the rate limit is counted; a 500 may be the counting itself failing (its store unreachable), a 503 the key's lookup: none can promise the rate-limit headers.
    if (authenticated && status !== 401 && status !== 500 && status !== 503) headers.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
    if (status === 429 || status === 503) headers.push('Retry-After');
    responses[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].message}`).join('\n\n'),
      headers: headerRefs(headers),
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/ErrorResponse' }, { type: 'object', properties: { error: { type: 'string', enum: list } } }],
          },
          examples: Object.fromEntries(list.map((code) => [code, errorExample(code)])),
        },
      },
    };
  }
  return responses;
}

/**
 * A JSON value that may hold `levels` more levels of arrays and objects, with
 * the text rules metadata has (no control characters but tab and line
 * breaks, in strings and keys alike). Written out level by level rather than
 * recursively, so that the depth the service allows is the depth the schema
 * allows.
 */
function boundedJson(levels: number): SchemaObject {
  const text = { type: 'string', pattern: noControlCharacters({ multiline: true }) } as const;
  const scalars: SchemaObject[] = [text, { type: 'number' }, { type: 'boolean' }, { type: 'null' }];
  if (levels === 0) return { anyOf: scalars };
  const inner = boundedJson(levels - 1);
  return { anyOf: [...scalars, { type: 'array', items: inner }, { type: 'object', propertyNames: text, additionalProperties: inner }] };
}

/** A metadata value: metadata's own object is the first of its METADATA_MAX_DEPTH levels. */
const JSON_VALUE_SCHEMA: SchemaObject = {
  description: `A value in \`metadata\`: any JSON value, its arrays and objects nested at most ${METADATA_MAX_DEPTH - 1} levels deep (so \`metadata\` is at most ${METADATA_MAX_DEPTH} levels); no control characters in its strings or keys except tab, line feed and carriage return.`,
  ...boundedJson(METADATA_MAX_DEPTH - 1),
};

const TAGS = [
  { name: 'platform', description: 'Liveness and API key checks.' },
  { name: 'payments', description: 'Pix and card payments: create (idempotent by `externalId`), read, cancel an unpaid card payment, refresh from the gateway.' },
  { name: 'refunds', description: 'Money of a paid payment given back, in full or in part: create (idempotent by `externalId`), read.' },
  { name: 'subscriptions', description: 'Card subscriptions: create (idempotent by `externalId`), read, cancel now or at the end of the period.' },
  { name: 'events', description: 'The events webhooks deliver, listed in order: catch up after your receiver was down.' },
];

/** Request body component names by operation id. */
const REQUEST_BODY_NAMES: Record<string, string> = {
  'payments-create': 'CreatePaymentRequest',
  'subscriptions-create': 'CreateSubscriptionRequest',
  'subscriptions-cancel': 'CancelSubscriptionRequest',
  'refunds-create': 'CreateRefundRequest',
};

/**
 * The generator names a recursive schema after a counter (`__schema0`) and
 * makes the component that carries its id a bare reference to it; both
 * become the one JsonValue component.
 */
function nameJsonValue(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, { $ref?: string }>;
  const anonymous = schemas.JsonValue?.$ref?.replace('#/components/schemas/', '');
  let text = JSON.stringify(document);
  if (anonymous?.startsWith('__schema')) text = text.replaceAll(`"#/components/schemas/${anonymous}"`, '"#/components/schemas/JsonValue"');
  const renamed = JSON.parse(text) as OpenAPIObject;
  const components = renamed.components!.schemas as Record<string, unknown>;
  if (anonymous) delete components[anonymous];
  components.JsonValue = JSON_VALUE_SCHEMA;
  return renamed;
}

/** Moves each inline request body schema into a named component, with its examples, and refers to it. */
function nameRequestBodies(document: OpenAPIObject): void {
  const schemas = document.components!.schemas as Record<string, unknown>;
  const requestBodies: Record<string, unknown> = {};
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      const body = operation.requestBody;
      const name = REQUEST_BODY_NAMES[operation.operationId ?? ''];
      if (!body || '$ref' in body || !name) continue;
      const json = body.content?.['application/json'];
      if (!json?.schema) continue;
      schemas[name] = json.schema;
      // An empty body is accepted where every field is optional (the subscription cancel).
      const required = operation.operationId !== 'subscriptions-cancel';
      requestBodies[name] = {
        required,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` }, examples: REQUEST_EXAMPLES[name] } },
      };
      operation.requestBody = { $ref: `#/components/requestBodies/${name}` };
    }
  }
  document.components!.requestBodies = requestBodies as never;
}

/** An example for a success response whose schema is a named component. */
function successExamples(success: { content?: Record<string, unknown> }): void {
  const json = success.content?.['application/json'] as { schema?: { $ref?: string }; examples?: unknown } | undefined;
  const name = json?.schema?.$ref?.replace('#/components/schemas/', '');
  const example = name ? RESPONSE_EXAMPLES[name] : undefined;
  if (json && name && example) json.examples = { [name.charAt(0).toLowerCase() + name.slice(1)]: example };
}

/** True for a `z.strictObject` input (its catch-all is `never`): the route refuses fields it does not know (decision 12). */
function isStrictObject(input: unknown): boolean {
  const def = (input as { _zod?: { def?: { type?: string; catchall?: { _zod?: { def?: { type?: string } } } } } } | undefined)?._zod?.def;
  return def?.type === 'object' && def.catchall?._zod?.def?.type === 'never';
}

function metaByRoute(router: AnyRouter): Map<string, RouteFacts> {
  const routes = new Map<string, RouteFacts>();
  for (const procedure of Object.values(router._def.procedures) as { _def: { meta?: RouteMeta; inputs?: unknown[] } }[]) {
    const meta = procedure._def.meta;
    const strictInput = (procedure._def.inputs ?? []).some(isStrictObject);
    const lookup = (procedure._def.inputs ?? []).includes(ExternalIdQuery);
    if (meta?.openapi) routes.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, { ...meta, strictInput, lookup });
  }
  return routes;
}

/**
 * trpc-to-openapi rebuilds a refined input (CreatePaymentInput's pix/card
 * rule) as a plain `z.object`, which documents an open body although the
 * service refuses unknown fields: a strict input's body is closed here again.
 */
function closeStrictBody(operation: Operation): void {
  const body = operation.requestBody;
  const schema = body && !('$ref' in body) ? (body.content?.['application/json']?.schema as SchemaObject | undefined) : undefined;
  if (schema?.type === 'object' && schema.additionalProperties === undefined) schema.additionalProperties = false;
}

/**
 * The lookups' `externalId` is optional in their input only so that its
 * absence is answered with the contract's 400 `missing_query` rather than a
 * schema's `invalid_input`: the service requires it, non-empty, and so does
 * the document.
 */
function requireExternalId(operation: Operation): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'query' || parameter.name !== 'externalId') continue;
    parameter.required = true;
    parameter.schema = { ...parameter.schema, minLength: 1 };
  }
}

/**
 * A POST route without a body (cancel, sync) takes no body or an empty JSON
 * object, and refuses a field in one (decision 12): stated as an optional body
 * that must be `{}`, so a validator refuses what the service refuses.
 */
const EMPTY_BODY = {
  required: false,
  description: 'No body, or an empty JSON object; any field in it is 400 `invalid_input`.',
  content: { 'application/json': { schema: { type: 'object', maxProperties: 0 }, examples: { empty: { summary: 'An empty object', value: {} } } } },
};

/**
 * CreatePaymentInput's rule across fields, which the generator cannot carry
 * over from a refinement: `card` is refused when `method` is pix.
 */
const CARD_ONLY_WITH_CARD_METHOD: SchemaObject = {
  not: { type: 'object', required: ['method', 'card'], properties: { method: { type: 'string', enum: ['pix', 'PIX'] }, card: { type: 'object' } } },
};

export function buildOpenApiDocument(router: AnyRouter, baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: 'Payments API',
    version: '1.0.0',
    openApiVersion: '3.1.0',
    baseUrl,
    description:
      'Pix and card payments and card subscriptions through three payment gateways, with one normalized state per resource. ' +
      'Authenticate with `Authorization: Bearer <API key>`; the key prefix (`sk_test_` or `sk_live_`) selects the environment. ' +
      'Amounts are integer cents of BRL.\n' +
      CONTRACT_READINGS,
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key: `sk_test_…` (sandbox) or `sk_live_…` (production).' } },
  });

  const routes = metaByRoute(router);
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, value] of Object.entries(item as Record<string, Operation>)) {
      const meta = routes.get(`${method} ${path}`);
      if (!meta) continue;
      const authenticated = Array.isArray(value.security) && value.security.length > 0;
      // The root requires the API key; a public route says so explicitly.
      if (!authenticated) value.security = [];
      if (meta.strictInput) closeStrictBody(value);
      if (meta.lookup) requireExternalId(value);
      if (meta.strictInput && method === 'post' && !value.requestBody) value.requestBody = { $ref: '#/components/requestBodies/EmptyBody' };
      const success = value.responses['200'];
      if (success) successExamples(success);
      const responses: Operation['responses'] = {};
      if (success) {
        const headers: (keyof typeof HEADERS)[] = ['X-Request-Id'];
        if (authenticated) headers.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
        if (meta.idempotentCreate) headers.push('Idempotent-Replayed');
        responses[String(meta.successStatus ?? 200)] = { ...success, headers: headerRefs(headers) };
      }
      value.responses = { ...responses, ...errorResponses(meta.errors ?? [], authenticated) };
    }
  }

  // The generator adds its own error schemas; the contract has exactly one.
  const schemas = Object.fromEntries(Object.entries(document.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.')));
  document.components = {
    ...document.components,
    schemas: { ...schemas, ErrorResponse: ERROR_RESPONSE_SCHEMA, ValidationIssue: VALIDATION_ISSUE_SCHEMA },
    headers: HEADERS,
  };
  nameRequestBodies(document);
  const named = document.components!.schemas as Record<string, SchemaObject>;
  named.CreatePaymentRequest = { ...named.CreatePaymentRequest, ...CARD_ONLY_WITH_CARD_METHOD };
  (document.components!.requestBodies as Record<string, unknown>).EmptyBody = EMPTY_BODY;
  const completed = nameJsonValue(document);
  return {
    openapi: completed.openapi,
    info: {
      ...completed.info,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Payments API support', url: `${baseUrl.replace(/\/$/, '')}/docs` },
    },
    servers: [{ url: baseUrl, description: 'This service (its PUBLIC_BASE_URL).' }],
    security: [{ bearerAuth: [] }],
    tags: TAGS,
    paths: completed.paths,
    components: completed.components,
  };
}
