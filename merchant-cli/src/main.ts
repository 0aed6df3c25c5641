#!/usr/bin/env node
/**
 * payments: the merchant's CLI. Results go to stdout (with --json, only the
 * JSON); a failure goes to stderr as the service's error code and message
 * (with --json, the contract's body) with an exit status per kind (errors.ts).
 */
import { CommanderError } from 'commander';
import { CliError, EXIT_CODES } from '../../cli/errors';
import { classify, MerchantCliError } from './errors';
import { buildProgram } from './program';
import type { GlobalOptions } from './profiles';

const program = buildProgram();
const asJson = () => Boolean(program.opts<GlobalOptions>().json) || process.argv.includes('--json');

try {
  await program.parseAsync();
} catch (error) {
  // --help and --version end the parse with a CommanderError of exit code 0.
  if (error instanceof CommanderError && error.exitCode === 0) process.exit(0);
  const failure =
    error instanceof CommanderError
      ? new MerchantCliError('usage', error.message.replace(/^error: /, ''), 2)
      : // The listen session (shared with payments-admin) reports its refusals with that CLI's codes and exit statuses.
        error instanceof CliError
        ? new MerchantCliError(error.code, error.message, EXIT_CODES[error.code])
        : classify(error, program.opts<GlobalOptions>().url ?? '');
  if (asJson()) process.stderr.write(`${JSON.stringify({ error: failure.code, message: failure.message })}\n`);
  // Commander has already printed its own parse errors.
  else if (!(error instanceof CommanderError)) process.stderr.write(`error (${failure.code}): ${failure.message}\n`);
  process.exit(failure.exitCode);
}
