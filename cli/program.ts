/**
 * The commands of payments-admin, built without running anything, so the
 * entry point, the completion script and the tests share one definition.
 */
import { Command, InvalidArgumentError } from 'commander';
import { BILLING_STATUSES, ENVIRONMENT_KINDS } from '../server/contract/enums';
import { operatorClient, findAdminToken, type OperatorClient } from './client';
import { registerCompletionCommand } from './completion';
import { EXIT_CODE_HELP } from './errors';
import { registerGatewayCommands, registerSimulatorCommands } from './gateway-commands';
import { registerRoutingCommands } from './routing-commands';
import { printResult, type Columns } from './output';
import { examples, type CliTools } from './tools';
import { registerListenCommand } from './listen-command';
import { registerReconciliationCommands } from './reconciliation-command';
import { registerRefundCommands } from './refund-commands';
import { registerTriggerCommand } from './trigger-command';
import { registerUserCommands } from './user-commands';
import { registerAuditCommands } from './audit-command';
import { registerWebhookCommands } from './webhook-commands';
import packageJson from '../package.json' with { type: 'json' };

export const DEFAULT_URL = 'http://127.0.0.1:3000';

// Read at build time into dist/cli/main.js (the build is redone whenever package.json changes).
const VERSION = packageJson.version;

/** Whether commander has printed a usage error itself (its parse errors); errors thrown by actions it leaves to main.ts. */
let usagePrinted = false;
export const commanderPrintedUsage = (): boolean => usagePrinted;

export interface GlobalOptions {
  url: string;
  token?: string;
  json?: boolean;
}

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

export function buildProgram(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv): Command {
  const program = new Command('payments-admin')
    .description('Operate a payments service: organizations, projects, environments, API keys, billing, gateways, routing, webhooks, reconciliation and the sandbox.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--url <url>', 'service base URL (env PAYMENTS_URL)', env.PAYMENTS_URL || DEFAULT_URL)
    .option('--token <token>', 'admin token (env PAYMENTS_ADMIN_TOKEN; default: $DATA_DIR/admin-token, ./data/admin-token, of the embedded service)')
    .option('--json', 'print the result as JSON on stdout, and nothing else')
    .addHelpText('after', `\nExamples:\n  $ payments-admin org list\n  $ payments-admin --url http://127.0.0.1:3917 --json env list | jq -r '.[].id'\n${EXIT_CODE_HELP}`)
    .showHelpAfterError(argv.includes('--json') ? false : '(add --help for usage)')
    .exitOverride()
    // Set before the subcommands are added: they copy these settings. With --json, main.ts reports usage errors as JSON instead.
    .configureOutput({
      outputError: (text, write) => {
        usagePrinted = true;
        if (!wantsJson()) write(text.replace(/^error: /, 'error (usage): '));
      },
    });

  const options = () => program.opts<GlobalOptions>();
  function wantsJson(): boolean {
    return Boolean(options().json) || argv.includes('--json');
  }

  const client = (): OperatorClient => {
    const { url, token: given } = options();
    return operatorClient(url, findAdminToken(given, env));
  };

  const run: CliTools['run'] =
    (action, columns?: Columns) =>
    async (...args) => {
      printResult(await action(...args), { asJson: Boolean(options().json), columns });
    };

  const tools: CliTools = { client, run, oneOf };
  registerTenancyCommands(program, tools);
  registerGatewayCommands(program, tools);
  registerSimulatorCommands(program, tools);
  registerRoutingCommands(program, tools);
  registerWebhookCommands(program, tools);
  registerListenCommand(program, tools);
  registerTriggerCommand(program, tools);
  registerReconciliationCommands(program, tools);
  registerRefundCommands(program, tools);
  registerUserCommands(program, tools);
  registerAuditCommands(program, tools);
  registerCompletionCommand(program);
  return program;
}

function registerTenancyCommands(program: Command, { client, run, oneOf }: CliTools): void {
  const org = program.command('org').description('organizations and their platform billing');
  examples(
    org
      .command('create')
      .description('create an organization (billing active and no quota unless told)')
      .requiredOption('--name <name>', 'organization name')
      .option('--billing <status>', `billing status (${BILLING_STATUSES.join('|')})`, oneOf(BILLING_STATUSES), 'active')
      .option('--monthly-limit <n>', 'monthly transaction quota (default: unlimited)', count)
      .action(run(async (o: { name: string; billing: (typeof BILLING_STATUSES)[number]; monthlyLimit?: number }) =>
        client().organizations.create.mutate({ name: o.name, billingStatus: o.billing, monthlyTxLimit: o.monthlyLimit ?? null }),
      )),
    'org create --name "Acme"',
    'org create --name "Acme" --monthly-limit 1000',
  );
  examples(
    org.command('list').description('every organization, oldest first').action(run(async () => client().organizations.list.query())),
    'org list',
    "--json org list | jq -r '.[].id'",
  );
  examples(
    org
      .command('billing <organizationId>')
      .description('set billing status and/or monthly quota')
      .option('--status <status>', `billing status (${BILLING_STATUSES.join('|')})`, oneOf(BILLING_STATUSES))
      .option('--monthly-limit <n|none>', 'monthly transaction quota, or none', countOrNone)
      .action(run(async (organizationId: string, o: { status?: (typeof BILLING_STATUSES)[number]; monthlyLimit?: CountOrNone }) =>
        client().organizations.setBilling.mutate({ organizationId, billingStatus: o.status, monthlyTxLimit: limitValue(o.monthlyLimit) }),
      )),
    'org billing org_… --status past_due',
    'org billing org_… --monthly-limit none',
  );
  examples(
    org.command('usage <organizationId>').description('transactions used this month, and the quota').action(run(async (organizationId: string) => client().organizations.usage.query({ organizationId }))),
    'org usage org_…',
  );

  const project = program.command('project').description('projects of an organization');
  examples(
    project
      .command('create')
      .description('create a project in an organization')
      .requiredOption('--org <organizationId>')
      .requiredOption('--name <name>')
      .action(run(async (o: { org: string; name: string }) => client().projects.create.mutate({ organizationId: o.org, name: o.name }))),
    'project create --org org_… --name "Shop"',
  );
  examples(
    project
      .command('list')
      .description("every project, or one organization's")
      .option('--org <organizationId>')
      .action(run(async (o: { org?: string }) => client().projects.list.query({ organizationId: o.org }))),
    'project list',
    'project list --org org_…',
  );

  const env = program.command('env').description('environments (one sandbox and one production per project)');
  examples(
    env
      .command('create')
      .description('create the sandbox or the production environment of a project')
      .requiredOption('--project <projectId>')
      .requiredOption('--kind <kind>', ENVIRONMENT_KINDS.join('|'), oneOf(ENVIRONMENT_KINDS))
      .action(run(async (o: { project: string; kind: (typeof ENVIRONMENT_KINDS)[number] }) => client().environments.create.mutate({ projectId: o.project, kind: o.kind }))),
    'env create --project prj_… --kind sandbox',
  );
  examples(
    env
      .command('list')
      .description("every environment, or one project's")
      .option('--project <projectId>')
      .action(run(async (o: { project?: string }) => client().environments.list.query({ projectId: o.project }))),
    'env list',
    'env list --project prj_…',
  );

  const key = program.command('key').description('API keys of an environment');
  examples(
    key
      .command('create')
      .description('create a key; its secret is printed this once')
      .requiredOption('--env <environmentId>')
      .option('--name <name>')
      .action(run(async (o: { env: string; name?: string }) => client().apiKeys.create.mutate({ environmentId: o.env, name: o.name }))),
    'key create --env env_… --name backend',
  );
  examples(
    key
      .command('list')
      .description('the keys of an environment (prefixes only, never secrets)')
      .requiredOption('--env <environmentId>')
      .action(run(async (o: { env: string }) => client().apiKeys.list.query({ environmentId: o.env }), {
        id: 'id',
        name: 'name',
        displayPrefix: 'prefix',
        rateLimits: 'limits',
        createdAt: 'created',
        lastUsedAt: 'last used',
        revokedAt: 'revoked',
      })),
    'key list --env env_…',
  );
  examples(
    key.command('revoke <apiKeyId>').description('revoke a key, effective at once').action(run(async (apiKeyId: string) => client().apiKeys.revoke.mutate({ apiKeyId }))),
    'key revoke key_…',
  );
  examples(
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
      )),
    'key limits key_… --payments-create 100',
    'key limits key_… --payments-create none',
  );
}
