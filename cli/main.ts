/**
 * payments-admin: the operator CLI. It talks to a running service's internal
 * operator API (never to the database), so it works the same against the
 * embedded default and a PostgreSQL deployment. Results go to stdout (with
 * `--json`, only the JSON); failures go to stderr with a stable code and an
 * exit status per kind (errors.ts).
 */
import { CommanderError } from 'commander';
import { classify, EXIT_CODES } from './errors';
import { buildProgram, commanderPrintedUsage, type GlobalOptions } from './program';

const program = buildProgram();
const asJson = () => Boolean(program.opts<GlobalOptions>().json) || process.argv.includes('--json');

try {
  await program.parseAsync();
} catch (error) {
  // --help and --version end the parse with a CommanderError of exit code 0.
  if (error instanceof CommanderError && error.exitCode === 0) process.exit(0);
  const failure = classify(error, program.opts<GlobalOptions>().url);
  if (error instanceof CommanderError && error.code === 'commander.help') failure.message = 'a command is needed (see --help)';
  if (asJson()) process.stderr.write(`${JSON.stringify({ error: failure.code, message: failure.message })}\n`);
  // Commander has already printed its own parse errors (and the hint after them); an argument an action refused it has not.
  else if (!(error instanceof CommanderError && commanderPrintedUsage())) process.stderr.write(`error (${failure.code}): ${failure.message}\n`);
  process.exit(EXIT_CODES[failure.code]);
}
