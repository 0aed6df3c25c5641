/** The SDK's types cannot drift from the contract: the committed generated file must equal a fresh generation. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT_FILE, currentContractSource } from '../../sdk/scripts/contract-source';
import { emitType } from '../../sdk/scripts/emit-types';
import { renderContract } from '../../sdk/scripts/render-contract';
import { ERROR_CATALOGUE } from '../../server/contract/errors';
import { ERROR_CODES } from '../../sdk/src/index';

describe('sdk/src/generated/contract.ts', () => {
  it('is what the generator makes from the current contract (run `npm run sdk:generate` after a contract change)', () => {
    expect(readFileSync(CONTRACT_FILE, 'utf8')).toBe(currentContractSource());
  });

  it('holds every schema, request body and error code of the contract', () => {
    const source = readFileSync(CONTRACT_FILE, 'utf8');
    for (const name of ['Payment', 'Subscription', 'Customer', 'CustomerInput', 'AuthTest', 'Health', 'ErrorResponse', 'ValidationIssue', 'JsonValue']) {
      expect(source).toContain(`export type ${name} = `);
    }
    for (const name of ['CreatePaymentRequest', 'CreateSubscriptionRequest', 'CancelSubscriptionRequest']) expect(source).toContain(`export type ${name} = `);
    expect(source).not.toMatch(/__schema/);
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });
});

describe('the emitter', () => {
  const context = { refName: (name: string) => name };

  it('writes the shapes the document uses', () => {
    expect(emitType({ type: ['string', 'null'] }, context, 'x')).toBe('string | null');
    expect(emitType({ anyOf: [{ type: 'integer' }, { type: 'null' }] }, context, 'x')).toBe('number | null');
    expect(emitType({ type: 'string', enum: ['a', 'b'] }, context, 'x')).toBe('"a" | "b"');
    expect(emitType({ type: 'boolean', const: true }, context, 'x')).toBe('true');
    expect(emitType({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, context, 'x')).toBe('(string | number)[]');
    expect(emitType({ $ref: '#/components/schemas/Payment' }, context, 'x')).toBe('Payment');
    expect(emitType({ type: 'object', additionalProperties: { type: 'number' } }, context, 'x')).toBe('{\n  [key: string]: number;\n}');
    expect(emitType({ type: 'object', properties: { 'a-b': { type: 'string' }, c: { type: 'integer' } }, required: ['c'], additionalProperties: false }, context, 'x')).toBe(
      '{\n  "a-b"?: string;\n  c: number;\n}',
    );
  });

  it('refuses keywords it does not understand instead of guessing', () => {
    expect(() => emitType({ type: 'object', patternProperties: { '^x': { type: 'string' } } }, context, 'Thing')).toThrow(/patternProperties.*Thing/);
    expect(() => emitType({ not: { type: 'string' } }, context, 'Other')).toThrow(/not/);
    expect(() => emitType({ $ref: 'https://example.com/schema' }, context, 'Remote')).toThrow(/\$ref/);
  });

  it('names request bodies after their operation and numbered schemas after the component that aliases them', () => {
    const source = renderContract({
      info: { version: '9.9.9' },
      components: {
        schemas: {
          Tree: { $ref: '#/components/schemas/__schema0' },
          __schema0: { type: 'array', items: { $ref: '#/components/schemas/__schema0' } },
          ErrorResponse: { type: 'object', required: ['error'], properties: { error: { type: 'string', enum: ['bad_tree'] } } },
        },
      },
      paths: {
        '/v1/things': {
          post: {
            operationId: 'things-create',
            requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { tree: { $ref: '#/components/schemas/Tree' } } } } } },
            responses: {
              '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } },
              '400': { content: { 'application/json': { schema: { allOf: [{ $ref: '#/components/schemas/ErrorResponse' }, { properties: { error: { enum: ['bad_tree'] } } }] } } } },
            },
          },
        },
      },
    });
    expect(source).toContain('export type Tree = Tree[];');
    expect(source).toContain('export type CreateThingRequest = {\n  tree?: Tree;\n};');
    expect(source).toContain('"things-create": {');
    expect(source).toContain('successStatus: 201;');
    expect(source).toContain('errors: "bad_tree";');
    expect(source).toContain('export const ERROR_CODES = [\n  "bad_tree",\n] as const;');
  });
});

describe('the SDK package', () => {
  it('imports nothing at run time but its own files and node: built-ins', () => {
    const root = join(import.meta.dirname, '../../sdk/src');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const source = readFileSync(join(root, file), 'utf8');
      for (const [, specifier] of source.matchAll(/\bfrom\s+'([^']+)'/g)) {
        expect(specifier!.startsWith('./') || specifier!.startsWith('../') || specifier!.startsWith('node:'), `${file} imports ${specifier}`).toBe(true);
        expect(specifier, `${file} imports ${specifier}`).not.toMatch(/server/);
      }
    }
    const manifest = JSON.parse(readFileSync(join(root, '../package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@service-payments/sdk', type: 'module' });
    expect(manifest.dependencies ?? {}).toEqual({});
  });
});
