/**
 * payments-admin: the operator CLI. It talks to a running service's internal
 * operator API (never to the database), so it works the same against the
 * embedded default and a PostgreSQL deployment.
 */
import '../../runtime/require-node';
import { Command, InvalidArgumentError } from 'commander';
import { TRPCClientError } from '@trpc/client';
import { BILLING_STATUSES, ENVIRONMENT_KINDS } from '../../contract/enums';
import { ADMIN_TOKEN_FILE, readLocalSecret } from '../../runtime/local-secrets';
import { adminClient, type AdminClient } from './client';
import { registerGatewayCommands, registerSimulatorCommands } from './gateway-commands';
import { printResult } from './output';
import { registerWebhookCommands } from './webhook-commands';

const program = new Command('payments-admin')
  .description('Operate a payments service: organizations, projects, environments, API keys, billing.')
  .option('--url <url>', 'service base URL (env PAYMENTS_URL)', process.env.PAYMENTS_URL ?? 'http://127.0.0.1:3000')
  .option('--token <token>', 'admin token (env PAYMENTS_ADMIN_TOKEN; default: <DATA_DIR>/admin-token of the embedded service)')
  .option('--json', 'print machine-readable JSON')
  .showHelpAfterError();

function client(): AdminClient {
  const opts = program.opts<{ url: string; token?: string }>();
  const token = opts.token ?? process.env.PAYMENTS_ADMIN_TOKEN ?? readLocalSecret(process.env.DATA_DIR ?? './data', ADMIN_TOKEN_FILE);
  if (!token) throw new Error('No admin token: pass --token, set PAYMENTS_ADMIN_TOKEN, or run next to the embedded service data folder.');
  return adminClient(opts.url, token);
}

const json = () => Boolean(program.opts<{ json?: boolean }>().json);

function oneOf<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${values.join(', ')}`);
    return value as T;
  };
}

function count(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a non-negative integer');
  return Number(value);
}

/** `none` removes a limit (commander drops a parser's null, so the word travels as is). */
type CountOrNone = number | 'none';
const countOrNone = (value: string): CountOrNone => (value === 'none' ? 'none' : count(value));
const limitValue = (value: CountOrNone | undefined): number | null | undefined => (value === 'none' ? null : value);

const run =
  <A extends unknown[]>(action: (...args: A) => Promise<unknown>) =>
  async (...args: A) => {
    printResult(await action(...args), json());
  };

const org = program.command('org').description('organizations and their platform billing');
org
  .command('create')
  .requiredOption('--name <name>', 'organization name')
  .option('--billing <status>', `billing status (${BILLING_STATUSES.join('|')})`, oneOf(BILLING_STATUSES), 'active')
  .option('--monthly-limit <n>', 'monthly transaction quota (default: unlimited)', count)
  .action(run(async (o: { name: string; billing: (typeof BILLING_STATUSES)[number]; monthlyLimit?: number }) =>
    client().organizations.create.mutate({ name: o.name, billingStatus: o.billing, monthlyTxLimit: o.monthlyLimit ?? null }),
  ));
org.command('list').action(run(async () => client().organizations.list.query()));
org
  .command('billing <organizationId>')
  .description('set billing status and/or monthly quota')
  .option('--status <status>', `billing status (${BILLING_STATUSES.join('|')})`, oneOf(BILLING_STATUSES))
  .option('--monthly-limit <n|none>', 'monthly transaction quota, or none', countOrNone)
  .action(run(async (organizationId: string, o: { status?: (typeof BILLING_STATUSES)[number]; monthlyLimit?: CountOrNone }) =>
    client().organizations.setBilling.mutate({ organizationId, billingStatus: o.status, monthlyTxLimit: limitValue(o.monthlyLimit) }),
  ));
org.command('usage <organizationId>').description('transactions used this month').action(run(async (organizationId: string) => client().organizations.usage.query({ organizationId })));

program
  .command('project')
  .description('projects')
  .command('create')
  .requiredOption('--org <organizationId>')
  .requiredOption('--name <name>')
  .action(run(async (o: { org: string; name: string }) => client().projects.create.mutate({ organizationId: o.org, name: o.name })));

program
  .command('env')
  .description('environments')
  .command('create')
  .requiredOption('--project <projectId>')
  .requiredOption('--kind <kind>', ENVIRONMENT_KINDS.join('|'), oneOf(ENVIRONMENT_KINDS))
  .action(run(async (o: { project: string; kind: (typeof ENVIRONMENT_KINDS)[number] }) => client().environments.create.mutate({ projectId: o.project, kind: o.kind })));

const key = program.command('key').description('API keys');
key
  .command('create')
  .description('create a key; its secret is printed this once')
  .requiredOption('--env <environmentId>')
  .option('--name <name>')
  .action(run(async (o: { env: string; name?: string }) => client().apiKeys.create.mutate({ environmentId: o.env, name: o.name })));
key.command('list').requiredOption('--env <environmentId>').action(run(async (o: { env: string }) => client().apiKeys.list.query({ environmentId: o.env })));
key.command('revoke <apiKeyId>').description('revoke at once').action(run(async (apiKeyId: string) => client().apiKeys.revoke.mutate({ apiKeyId })));
key
  .command('limits <apiKeyId>')
  .description('per-key requests per minute; "none" restores the default')
  .option('--payments-create <n|none>', 'POST /v1/payments', countOrNone)
  .option('--payments-sync <n|none>', 'POST /v1/payments/{id}/sync', countOrNone)
  .option('--payments-cancel <n|none>', 'POST /v1/payments/{id}/cancel', countOrNone)
  .option('--default <n|none>', 'every other authenticated route', countOrNone)
  .action(run(async (apiKeyId: string, o: { paymentsCreate?: CountOrNone; paymentsSync?: CountOrNone; paymentsCancel?: CountOrNone; default?: CountOrNone }) =>
    client().apiKeys.setRateLimits.mutate({
      apiKeyId,
      limits: {
        payments_create: limitValue(o.paymentsCreate),
        payments_sync: limitValue(o.paymentsSync),
        payments_cancel: limitValue(o.paymentsCancel),
        default: limitValue(o.default),
      },
    }),
  ));

registerGatewayCommands(program, { client, run, oneOf });
registerSimulatorCommands(program, { client, run, oneOf });
registerWebhookCommands(program, { client, run, oneOf });

/** Input refusals arrive as a JSON list of Zod issues; show them as `field: problem` lines. */
function readableMessage(message: string): string {
  try {
    const issues = JSON.parse(message) as { path: (string | number)[]; message: string }[];
    return issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('\n');
  } catch {
    return message;
  }
}

try {
  await program.parseAsync();
} catch (error) {
  const message = error instanceof TRPCClientError || error instanceof Error ? readableMessage(error.message) : String(error);
  if (json()) process.stderr.write(`${JSON.stringify({ error: message })}\n`);
  else process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}
