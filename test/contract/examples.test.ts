/**
 * Every example in the OpenAPI document (request bodies, success responses,
 * each error code) validates against the schema it illustrates, checked with
 * a JSON Schema 2020-12 validator over the document's own components.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { v1Router } from '../../server/api/router';
import { ERROR_CATALOGUE, type ErrorCode } from '../../server/contract/errors';
import { buildOpenApiDocument } from '../../server/contract/openapi';

const document = buildOpenApiDocument(v1Router, 'http://127.0.0.1:3000') as any;

interface Case {
  where: string;
  schema: unknown;
  examples: Record<string, { value: unknown }>;
}

function media(where: string, content: any): Case | null {
  const json = content?.['application/json'];
  return json ? { where, schema: json.schema, examples: json.examples ?? {} } : null;
}

function cases(): Case[] {
  const found: Case[] = [];
  for (const [name, body] of Object.entries<any>(document.components.requestBodies)) {
    const c = media(`requestBodies.${name}`, body.content);
    if (c) found.push(c);
  }
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        const c = media(`${method.toUpperCase()} ${path} ${status}`, response.content);
        if (c) found.push(c);
      }
    }
  }
  return found;
}

function validatorFor(schema: unknown) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The components are reachable under the document's own JSON pointers.
  ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
  const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
  return ajv.compile(rewritten);
}

describe('the examples of the OpenAPI document', () => {
  const all = cases();

  it('exist for every request body, every success response and every error code of each route', () => {
    for (const c of all) expect(Object.keys(c.examples).length, c.where).toBeGreaterThan(0);
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const operation of Object.values<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) < 400) continue;
          const codes: string[] = response.content['application/json'].schema.allOf[1].properties.error.enum;
          expect(Object.keys(response.content['application/json'].examples).sort(), `${path} ${status}`).toEqual([...codes].sort());
        }
      }
    }
  });

  it('each validate against their schema', () => {
    expect(all.length).toBeGreaterThan(40);
    for (const c of all) {
      const validate = validatorFor(c.schema);
      for (const [name, example] of Object.entries(c.examples)) {
        const valid = validate(example.value);
        expect(valid, `${c.where} example ${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    }
  });

  it('show each error code with the status, message and extra fields of the catalogue', () => {
    for (const c of all.filter((x) => /\s[45]\d\d$/.test(x.where))) {
      for (const [code, example] of Object.entries<any>(c.examples)) {
        const entry = ERROR_CATALOGUE[code as ErrorCode];
        expect(c.where.endsWith(String(entry.status))).toBe(true);
        expect(Object.keys(example.value).sort()).toEqual(['error', 'message', ...entry.extra].sort());
      }
    }
  });
});
