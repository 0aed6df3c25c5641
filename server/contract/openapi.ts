/**
 * The OpenAPI 3.1 document of /v1, generated from the tRPC procedures and then
 * completed with what the generator cannot know: 201 statuses, the contract's
 * one error body and which codes each route answers, rate-limit and request-id
 * headers, and the readings of the contract.
 */
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AnyRouter } from '@trpc/server';
import type { HeaderObject, SchemaObject } from 'openapi3-ts/oas31';
import { GATEWAY_NAMES, PAYMENT_METHODS } from './enums';
import { ERROR_CATALOGUE, type ErrorCode } from './errors';
import { CONTRACT_READINGS } from './decisions';

type Operation = {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};
type RouteMeta = { openapi?: { method: string; path: string }; successStatus?: number; errors?: readonly string[]; rateLimit?: string };

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
    status: { type: 'string', description: 'Cancel conflicts: the current status.' },
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

const HEADERS: Record<'X-Request-Id' | 'X-RateLimit-Limit' | 'X-RateLimit-Remaining' | 'X-RateLimit-Reset' | 'Retry-After', HeaderObject> = {
  'X-Request-Id': { description: 'Id of this request, also in the service logs.', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per one-minute window for this key and route.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time in seconds when the current window resets.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
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
    if (authenticated && status !== 401) headers.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
    if (status === 429) headers.push('Retry-After');
    responses[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].message}`).join('\n\n'),
      headers: headerRefs(headers),
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/ErrorResponse' }, { type: 'object', properties: { error: { type: 'string', enum: list } } }],
          },
        },
      },
    };
  }
  return responses;
}

function metaByRoute(router: AnyRouter): Map<string, RouteMeta> {
  const routes = new Map<string, RouteMeta>();
  for (const procedure of Object.values(router._def.procedures) as { _def: { meta?: RouteMeta } }[]) {
    const meta = procedure._def.meta;
    if (meta?.openapi) routes.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, meta);
  }
  return routes;
}

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
      const success = value.responses['200'];
      const responses: Operation['responses'] = {};
      if (success) {
        const headers: (keyof typeof HEADERS)[] = ['X-Request-Id'];
        if (authenticated) headers.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
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
  return document;
}
