/**
 * trpc-to-openapi switches Zod coercion on, at request time, for every
 * number/boolean/bigint/date field of an input object, request bodies
 * included: `"5"` would become 5 and `"false"` would become true. Money and
 * flags must never be guessed, so every input schema of the router gets its
 * `coerce` flag pinned to false: the adapter's assignment becomes a no-op.
 * (Our query and path parameters are all strings, so nothing needs coercion.)
 */
import type { AnyRouter } from '@trpc/server';

type ZodLike = { _zod?: { def?: Record<string, unknown> } };

function pin(schema: unknown, seen: Set<unknown>): void {
  const def = (schema as ZodLike | undefined)?._zod?.def;
  if (!def || seen.has(def)) return;
  seen.add(def);
  if ('coerce' in def || ['number', 'boolean', 'bigint', 'date'].includes(def.type as string)) {
    Object.defineProperty(def, 'coerce', { get: () => false, set: () => {}, configurable: false, enumerable: true });
  }
  for (const key of ['innerType', 'in', 'out', 'element', 'valueType', 'left', 'right']) pin(def[key], seen);
  const shape = def.shape as Record<string, unknown> | undefined;
  if (shape) for (const child of Object.values(shape)) pin(child, seen);
  const options = def.options as unknown[] | undefined;
  if (Array.isArray(options)) for (const option of options) pin(option, seen);
}

export function pinInputCoercion(router: AnyRouter): void {
  const seen = new Set<unknown>();
  for (const procedure of Object.values(router._def.procedures) as { _def: { inputs: unknown[] } }[]) {
    for (const input of procedure._def.inputs) pin(input, seen);
  }
}
