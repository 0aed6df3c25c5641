import type { AdminClient } from './client';

/** What command groups defined outside main.ts need from it. */
export interface CliTools {
  client(): AdminClient;
  /** Wraps an action so its result is printed (as JSON with --json). */
  run<A extends unknown[]>(action: (...args: A) => Promise<unknown>): (...args: A) => Promise<void>;
  oneOf<T extends string>(values: readonly T[]): (value: string) => T;
}
