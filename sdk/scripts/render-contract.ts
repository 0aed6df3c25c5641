/**
 * Renders `sdk/src/generated/contract.ts` from an OpenAPI 3.1 document: one
 * type per component schema, one per request body, an `Operations` map (path,
 * method, success status, body, response, error codes of each operation) and
 * the error codes as a union and a runtime list. Pure: the generator writes
 * the result and the drift test compares it with the committed file.
 */
import { docLines, emitType, jsDoc, type EmitContext, type JsonSchema } from './emit-types';

interface MediaType {
  schema?: JsonSchema;
}
interface RequestBody {
  required?: boolean;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  description?: string;
  summary?: string;
  requestBody?: RequestBody | { $ref: string };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}
export interface OpenApiDocument {
  info: { version: string };
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema>; requestBodies?: Record<string, RequestBody> };
}

const REF_PREFIX = '#/components/schemas/';
const REQUEST_BODY_PREFIX = '#/components/requestBodies/';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const pascal = (words: string[]): string => words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');

/**
 * The server's generator names shared sub-schemas `__schema0`, `__schema1`…
 * (a numbering that shifts whenever the server adds one). A named component
 * that is only a `$ref` to such a schema lends it its name and is emitted
 * with its body, so the SDK never exposes the numbered names.
 */
function componentBodies(schemas: Record<string, JsonSchema>): { names: Map<string, string>; bodies: Map<string, JsonSchema> } {
  const names = new Map<string, string>();
  const bodies = new Map<string, JsonSchema>();
  const refTarget = (schema: JsonSchema) => (typeof schema.$ref === 'string' ? schema.$ref.replace(REF_PREFIX, '') : undefined);
  for (const [name, schema] of Object.entries(schemas)) {
    if (name.startsWith('__')) continue;
    names.set(name, name);
    const target = refTarget(schema);
    const aliased = target?.startsWith('__') ? schemas[target] : undefined;
    if (target && aliased && !names.has(target)) {
      names.set(target, name);
      bodies.set(name, { ...aliased, description: schema.description ?? aliased.description });
    } else {
      bodies.set(name, schema);
    }
  }
  for (const name of Object.keys(schemas)) {
    if (!names.has(name)) throw new Error(`render-contract: component ${name} has no public name to be emitted under`);
  }
  return { names, bodies };
}

/** `payments-create` → `CreatePaymentRequest`; `subscriptions-cancel` → `CancelSubscriptionRequest`. */
function requestTypeName(operationId: string): string {
  const [resource, ...action] = operationId.split('-');
  if (!resource || action.length === 0) throw new Error(`render-contract: cannot name the body of operation ${operationId}`);
  return `${pascal(action)}${pascal([resource.replace(/s$/, '')])}Request`;
}

const errorCodesOf = (schema: JsonSchema | undefined): string[] => {
  const parts = Array.isArray(schema?.allOf) ? (schema.allOf as JsonSchema[]) : [];
  for (const part of parts) {
    const error = (part.properties as Record<string, JsonSchema> | undefined)?.error;
    if (Array.isArray(error?.enum)) return error.enum.map(String);
  }
  return [];
};

/** The operation's request body, inline or by reference to `components.requestBodies`. */
function requestBodyOf(document: OpenApiDocument, operation: Operation): RequestBody | undefined {
  const body = operation.requestBody;
  if (!body || !('$ref' in body)) return body;
  if (!body.$ref.startsWith(REQUEST_BODY_PREFIX)) throw new Error(`render-contract: unsupported request body $ref ${body.$ref} in ${operation.operationId}`);
  const named = document.components?.requestBodies?.[body.$ref.slice(REQUEST_BODY_PREFIX.length)];
  if (!named) throw new Error(`render-contract: request body ${body.$ref} of ${operation.operationId} is not in components.requestBodies`);
  return named;
}

export function renderContract(document: OpenApiDocument): string {
  const schemas = document.components?.schemas ?? {};
  const { names, bodies } = componentBodies(schemas);
  const context: EmitContext = {
    refName(component) {
      const name = names.get(component);
      if (!name) throw new Error(`render-contract: $ref to unknown component ${component}`);
      return name;
    },
  };

  const out: string[] = [
    '/**',
    ' * Types of the public /v1 contract, generated from its OpenAPI document by',
    ' * sdk/scripts/generate.ts (`npm run sdk:generate`). Do not edit by hand:',
    ' * test/sdk/contract-generated.test.ts fails when this file and the contract differ.',
    ' */',
    '',
    `export const CONTRACT_VERSION = ${JSON.stringify(document.info.version)};`,
    '',
  ];

  // Components: under their public names, in a stable order.
  for (const name of [...bodies.keys()].sort()) {
    const schema = bodies.get(name)!;
    out.push(`${jsDoc(docLines(schema))}export type ${name} = ${emitType(schema, context, name)};`, '');
  }

  // Request bodies are inline in the operations: they get names from the operation ids.
  const operations: string[] = [];
  const allCodes = new Set<string>();
  const entries = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
  entries.sort((a, b) => String(a.operation.operationId).localeCompare(String(b.operation.operationId)));
  for (const { path, method, operation } of entries) {
    const id = operation.operationId;
    if (!id) throw new Error(`render-contract: ${method} ${path} has no operationId`);
    const bodySchema = requestBodyOf(document, operation)?.content?.['application/json']?.schema;
    let requestType = 'never';
    if (bodySchema && typeof bodySchema.$ref === 'string') {
      // A named component (the server names its request bodies): already emitted above, under its own name.
      requestType = emitType(bodySchema, context, `${id}.requestBody`);
    } else if (bodySchema) {
      requestType = requestTypeName(id);
      out.push(`${jsDoc([`Request body of \`${method.toUpperCase()} ${path}\`.`])}export type ${requestType} = ${emitType(bodySchema, context, requestType)};`, '');
    }
    const responses = Object.entries(operation.responses ?? {});
    const success = responses.find(([status]) => status.startsWith('2'));
    if (!success) throw new Error(`render-contract: ${id} has no success response`);
    const successSchema = success[1].content?.['application/json']?.schema;
    const responseType = successSchema ? emitType(successSchema, context, `${id}.response`) : 'void';
    const codes = responses.flatMap(([, response]) => errorCodesOf(response.content?.['application/json']?.schema));
    codes.forEach((code) => allCodes.add(code));
    operations.push(
      [
        `${JSON.stringify(id)}: {`,
        `  method: ${JSON.stringify(method.toUpperCase())};`,
        `  path: ${JSON.stringify(path)};`,
        `  successStatus: ${Number(success[0])};`,
        `  request: ${requestType};`,
        `  response: ${responseType};`,
        `  errors: ${codes.length > 0 ? codes.map((code) => JSON.stringify(code)).join(' | ') : 'never'};`,
        '};',
      ].join('\n'),
    );
  }

  out.push(
    '/** Every operation of /v1 by operationId: how it is called, what it answers, which error codes it may return. */',
    `export interface Operations {\n  ${operations.join('\n').replaceAll('\n', '\n  ')}\n}`,
    '',
  );

  const errorProperty = (schemas.ErrorResponse?.properties as Record<string, JsonSchema> | undefined)?.error;
  if (!Array.isArray(errorProperty?.enum)) throw new Error('render-contract: ErrorResponse.error has no enum of codes');
  const catalogue = errorProperty.enum.map(String);
  for (const code of allCodes) {
    if (!catalogue.includes(code)) throw new Error(`render-contract: operation error ${code} is missing from ErrorResponse.error`);
  }
  out.push(
    '/** Every stable error code of the contract (`ErrorResponse.error`), in catalogue order. */',
    `export const ERROR_CODES = [\n  ${catalogue.map((code) => JSON.stringify(code)).join(',\n  ')},\n] as const;`,
    '',
    'export type ErrorCode = (typeof ERROR_CODES)[number];',
    '',
  );
  return out.join('\n');
}
