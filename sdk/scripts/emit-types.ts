/**
 * A small JSON Schema → TypeScript emitter for exactly the shapes the /v1
 * OpenAPI document uses. Any keyword it does not know makes it throw, so a
 * contract that starts using something new fails the generator loudly instead
 * of producing a silently wrong type.
 */

export type JsonSchema = { [keyword: string]: unknown };

/** Keywords that only document or constrain values; they never change the TypeScript type. */
const ANNOTATIONS = new Set([
  'description',
  'default',
  'example',
  'examples',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'title',
  'deprecated',
  'readOnly',
  'writeOnly',
  // Property names of a JSON object are always strings in TypeScript.
  'propertyNames',
  // An object's most fields (the empty body of cancel and sync): TypeScript cannot state it; the type stays that of the other keywords.
  'maxProperties',
]);
const STRUCTURE = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', '$ref']);

const REF_PREFIX = '#/components/schemas/';
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export interface EmitContext {
  /** Component name → the TypeScript name it is emitted under. */
  refName(component: string): string;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeywords(schema: JsonSchema, where: string): void {
  for (const keyword of Object.keys(schema)) {
    // `not` beside a type only narrows its values (CreatePaymentRequest: no `card` with pix), which TypeScript cannot state; alone it would be a type of its own.
    if (keyword === 'not' && 'type' in schema) continue;
    if (!ANNOTATIONS.has(keyword) && !STRUCTURE.has(keyword)) {
      throw new Error(`emit-types: unsupported JSON Schema keyword "${keyword}" at ${where}; teach sdk/scripts/emit-types.ts about it`);
    }
  }
}

const literal = (value: unknown): string => {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return JSON.stringify(value);
  throw new Error(`emit-types: unsupported literal ${JSON.stringify(value)}`);
};

const union = (members: string[]): string => {
  const unique = [...new Set(members)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
};

/** Parenthesizes a union or intersection so it can be followed by `[]`. */
const arrayOf = (item: string): string => (/[|&]/.test(item) ? `(${item})[]` : `${item}[]`);

const indent = (text: string, by: string): string => text.replaceAll('\n', `\n${by}`);

/** The JSDoc lines of a schema: its description and the value rules a caller can act on. */
export function docLines(schema: JsonSchema): string[] {
  const lines: string[] = [];
  if (typeof schema.description === 'string') lines.push(...schema.description.split('\n'));
  const bound = (name: string, value: unknown) => {
    // zod writes ±MAX_SAFE_INTEGER on every integer; it says nothing to a reader.
    if (typeof value === 'number' && Math.abs(value) !== Number.MAX_SAFE_INTEGER) lines.push(`${name}: ${value}`);
  };
  for (const name of ['minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems']) bound(name, schema[name]);
  if (typeof schema.format === 'string') lines.push(`format: ${schema.format}`);
  if (schema.default !== undefined) lines.push(`default: ${JSON.stringify(schema.default)}`);
  return lines;
}

export function jsDoc(lines: string[], prefix = ''): string {
  if (lines.length === 0) return '';
  const safe = lines.map((line) => line.replaceAll('*/', '*\\/'));
  if (safe.length === 1) return `${prefix}/** ${safe[0]} */\n`;
  return `${prefix}/**\n${safe.map((line) => `${prefix} * ${line}`.trimEnd()).join('\n')}\n${prefix} */\n`;
}

/** The TypeScript type of a schema; `where` names it in error messages. */
export function emitType(schema: unknown, context: EmitContext, where: string): string {
  if (schema === true || (isSchema(schema) && Object.keys(schema).every((key) => ANNOTATIONS.has(key)))) return 'unknown';
  if (!isSchema(schema)) throw new Error(`emit-types: expected a schema object at ${where}`);
  checkKeywords(schema, where);

  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith(REF_PREFIX)) throw new Error(`emit-types: unsupported $ref ${schema.$ref} at ${where}`);
    const others = Object.keys(schema).filter((key) => key !== '$ref' && !ANNOTATIONS.has(key));
    if (others.length > 0) throw new Error(`emit-types: $ref with siblings ${others.join(', ')} at ${where}`);
    return context.refName(schema.$ref.slice(REF_PREFIX.length));
  }
  if (Array.isArray(schema.allOf)) {
    const rest = withoutKeys(schema, ['allOf']);
    const parts = schema.allOf.map((part, i) => emitType(part, context, `${where}.allOf[${i}]`));
    if (hasStructure(rest)) parts.push(emitType(rest, context, where));
    return parts.map((part) => (part.includes('|') ? `(${part})` : part)).join(' & ');
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (Array.isArray(options)) {
      if (hasStructure(withoutKeys(schema, [keyword]))) throw new Error(`emit-types: ${keyword} with sibling structure at ${where}`);
      return union(options.map((option, i) => emitType(option, context, `${where}.${keyword}[${i}]`)));
    }
  }
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));

  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? inferTypes(schema) : [schema.type];
  return union(types.map((type) => emitSingleType(String(type), schema, context, where)));
}

function withoutKeys(schema: JsonSchema, keys: string[]): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !keys.includes(key)));
}

function hasStructure(schema: JsonSchema): boolean {
  return Object.keys(schema).some((key) => STRUCTURE.has(key));
}

function inferTypes(schema: JsonSchema): string[] {
  if (schema.properties !== undefined || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items !== undefined) return ['array'];
  throw new Error('emit-types: schema without a type');
}

function emitSingleType(type: string, schema: JsonSchema, context: EmitContext, where: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayOf(schema.items === undefined ? 'unknown' : emitType(schema.items, context, `${where}.items`));
    case 'object':
      return emitObject(schema, context, where);
    default:
      throw new Error(`emit-types: unsupported type "${type}" at ${where}`);
  }
}

function emitObject(schema: JsonSchema, context: EmitContext, where: string): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const members: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    const type = emitType(property, context, `${where}.${name}`);
    const doc = isSchema(property) ? jsDoc(docLines(property)) : '';
    members.push(`${doc}${key}${required.has(name) ? '' : '?'}: ${type};`);
  }
  const extra = schema.additionalProperties;
  if (extra === true || (extra === undefined && members.length === 0)) {
    members.push('[key: string]: unknown;');
  } else if (extra !== undefined && extra !== false) {
    // An index signature must also admit the declared properties' types.
    const declared = Object.entries(properties).map(([name]) => emitType(properties[name], context, `${where}.${name}`));
    const value = emitType(extra, context, `${where}.additionalProperties`);
    members.push(`[key: string]: ${union([value, ...declared])};`);
  }
  if (members.length === 0) return 'Record<string, never>';
  return `{\n  ${indent(members.join('\n'), '  ')}\n}`;
}
