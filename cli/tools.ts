import type { Command } from 'commander';
import type { OperatorClient } from './client';
import type { Columns } from './output';

/** What command groups defined outside main.ts need from it. */
export interface CliTools {
  client(): OperatorClient;
  /** Wraps an action so its result is printed (as JSON with --json; lists as a table with these columns otherwise). */
  run<A extends unknown[]>(action: (...args: A) => Promise<unknown>, columns?: Columns): (...args: A) => Promise<void>;
  oneOf<T extends string>(values: readonly T[]): (value: string) => T;
}

const EXAMPLES = new WeakMap<Command, string[]>();

/** Adds worked invocations to a command's `--help` (every command has at least one; a test checks). */
export function examples(command: Command, ...lines: string[]): Command {
  EXAMPLES.set(command, [...(EXAMPLES.get(command) ?? []), ...lines]);
  command.addHelpText('after', `\nExamples:\n${lines.map((line) => `  $ payments-admin ${line}`).join('\n')}`);
  return command;
}

export const examplesOf = (command: Command): string[] => EXAMPLES.get(command) ?? [];
