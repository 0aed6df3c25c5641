/**
 * Validates response bodies against the service's own OpenAPI document: the
 * document is the contract, so every answer a test sees must fit it.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { call, type Reply } from './http';

export interface ContractChecker {
  /** Asserts the reply's status is documented for the route and its body fits that status's schema. */
  expectConforms(method: string, path: string, reply: Reply): void;
}

export async function loadContract(baseUrl: string): Promise<ContractChecker> {
  const document = (await call(baseUrl, 'GET', '/v1/openapi.json')).body;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
  const rewrite = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
  return {
    expectConforms(method, path, reply) {
      const operation = document.paths[path]?.[method.toLowerCase()];
      expect(operation, `${method} ${path} is documented`).toBeDefined();
      const response = operation.responses[String(reply.status)];
      expect(response, `${method} ${path} documents status ${reply.status}`).toBeDefined();
      const schema = response.content?.['application/json']?.schema;
      expect(schema, `${method} ${path} ${reply.status} has a JSON schema`).toBeDefined();
      const validate = ajv.compile(rewrite(schema) as object);
      const valid = validate(reply.body);
      expect(valid, `${method} ${path} ${reply.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
    },
  };
}
