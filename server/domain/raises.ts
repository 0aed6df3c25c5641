/**
 * Which contract error codes a domain operation can answer with: the codes it
 * raises itself and those of the operations it calls. Each /v1 route
 * documents exactly the codes of its use case (api/route-errors.ts), and
 * test/domain/error-declarations.test.ts reads the sources to check that every
 * code a module raises is declared there and every declared code is raised.
 */
import type { ErrorCode } from '../contract/errors';

export interface Raises {
  /** Codes raised by this operation's own code. */
  readonly own: readonly ErrorCode[];
  /** Everything it can answer with, its collaborators' codes included. */
  readonly codes: readonly ErrorCode[];
}

export function raises(own: readonly ErrorCode[], ...via: readonly Raises[]): Raises {
  return { own, codes: [...new Set([...own, ...via.flatMap((collaborator) => collaborator.codes)])] };
}

export const isRaises = (value: unknown): value is Raises =>
  typeof value === 'object' && value !== null && Array.isArray((value as Raises).own) && Array.isArray((value as Raises).codes);
