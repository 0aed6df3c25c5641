/**
 * The commands of `payments`, the merchant's CLI: everything with one API
 * key, nothing of the operator's (that is `payments-admin`, the service's own
 * bin). /v1 calls go through the published SDK; listen, trigger and the
 * sandbox simulators are the service's sandbox tools (sandbox-tools.ts, and
 * the listen session shared with payments-admin, bundled at build time).
 */
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { PaymentsClient, type WebhookEventType } from '@service-payments/sdk';
import { registerCompletionCommand } from '../../cli/completion';
import { listenSession, localUrl } from '../../cli/listen-session';
import { printResult, type Columns } from '../../cli/output';
import { WEBHOOK_EVENT_TYPES } from '../../server/contract/event-types';
import { EXIT_CODE_HELP } from './errors';
import { resolveProfile, saveProfile, DEFAULT_BASE_URL, DEFAULT_PROFILE, type GlobalOptions } from './profiles';
import { sandboxTool } from './sandbox-tools';
import { CLI_VERSION } from './version';

const EVENT_COLUMNS: Columns = { id: 'id', type: 'type', createdAt: 'created', data: 'data' };

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
};

export function buildProgram(env: NodeJS.ProcessEnv = process.env): Command {
  const program = new Command('payments')
    .description('The payments service from your terminal, with your API key: webhooks on this machine, sandbox simulations, events, payments and refunds.')
    .version(CLI_VERSION)
    .option('--profile <name>', `the profile \`payments login\` stored (env PAYMENTS_PROFILE; default "${DEFAULT_PROFILE}")`)
    .option('--api-key <key>', 'an API key instead of the profile\'s (env PAYMENTS_API_KEY)')
    .option('--url <baseUrl>', `the service's address instead of the profile's (env PAYMENTS_URL; default ${DEFAULT_BASE_URL})`)
    .option('--json', 'print JSON only (errors too: {"error", "message"} on stderr)')
    .exitOverride()
    .addHelpText('after', EXIT_CODE_HELP);

  const global = () => program.opts<GlobalOptions>();
  const asJson = () => Boolean(global().json);
  const profile = () => resolveProfile(global(), env);
  const sdk = () => {
    const { apiKey, baseUrl } = profile();
    // Retries of 429 and network failures are the SDK's; a terminal can wait a little longer than a web handler.
    return new PaymentsClient({ apiKey, baseUrl, maxRetryAfterSeconds: 10 });
  };
  const print = (result: unknown, columns?: Columns) => printResult(result, { asJson: asJson(), columns });
  const tool = <T>(procedure: string, input: unknown) => {
    const { apiKey, baseUrl } = profile();
    return sandboxTool<T>(baseUrl, apiKey, procedure, input);
  };

  program
    .command('login')
    .description('check an API key with the service and store it, with the service\'s address, as a profile (mode 0600)')
    .option('--key <key>', 'the API key to store (default: --api-key, PAYMENTS_API_KEY, or read from stdin)')
    .action(async (o: { key?: string }) => {
      const name = global().profile || env.PAYMENTS_PROFILE || DEFAULT_PROFILE;
      const apiKey = (o.key || global().apiKey || env.PAYMENTS_API_KEY || (await readStdin())).trim();
      const baseUrl = (global().url || env.PAYMENTS_URL || DEFAULT_BASE_URL).replace(/\/$/, '');
      const whoAmI = await new PaymentsClient({ apiKey, baseUrl }).authTest();
      const file = saveProfile(env, name, { apiKey, baseUrl });
      // (The answer's `lastResponse` is not enumerable: the spread copies the identity only.)
      const identity = { ...whoAmI };
      if (asJson()) return print({ profile: name, baseUrl, configFile: file, ...identity });
      process.stdout.write(`Logged in as profile "${name}" at ${baseUrl} (${JSON.stringify(identity)}); kept in ${file}\n`);
    });

  program
    .command('listen')
    .description('forward your sandbox environment\'s events, as they happen, to a local URL, signed like real deliveries (Ctrl-C stops)')
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://127.0.0.1:4000/hooks', localUrl)
    .option('--new-secret', 'make a new signing secret instead of the one kept for this key on this machine')
    .action(async (o: { forwardTo: string; newSecret?: boolean }) => {
      const { apiKey, baseUrl } = profile();
      await listenSession({ baseUrl, credential: { kind: 'apiKey', bearer: apiKey }, json: asJson(), forwardTo: o.forwardTo, newSecret: o.newSecret });
    });

  program
    .command('trigger')
    .description('produce an event in your sandbox environment, as your integration and its customer would')
    .addArgument(new Argument('<event-type>', 'the event to produce').choices(WEBHOOK_EVENT_TYPES))
    .action(async (eventType: WebhookEventType) => {
      const result = await tool<{ environmentId: string; events: { id: string; type: string; resourceId: string }[] }>('simulators.trigger', { eventType });
      print(asJson() ? result : result.events, { type: 'type', id: 'id', resourceId: 'resource' });
    });

  const events = program.command('events').description('the events of your environment, as webhooks deliver them (GET /v1/events)');
  events
    .command('list')
    .description('one page of events, oldest first')
    .option('--after <eventId>', 'continue after this event (the last one you processed)')
    .addOption(new Option('--type <type>', 'only events of this type').choices(WEBHOOK_EVENT_TYPES))
    .option('--limit <n>', 'events per page, 1 to 100', positiveInt)
    .action(async (o: { after?: string; type?: WebhookEventType; limit?: number }) => {
      const page = await sdk().events.list({ after: o.after, type: o.type, limit: o.limit });
      if (asJson()) return print({ data: page.data, hasMore: page.hasMore, nextCursor: page.nextCursor });
      print(page.data, EVENT_COLUMNS);
      if (page.hasMore) process.stdout.write(`(more: --after ${page.nextCursor})\n`);
    });
  events
    .command('tail')
    .description('print events as they happen, from now (or after --after), until Ctrl-C')
    .option('--after <eventId>', 'start after this event instead of now')
    .option('--interval <ms>', 'how often to ask for new events', positiveInt, 1000)
    .action(async (o: { after?: string; interval: number }) => {
      const client = sdk();
      let after = o.after ?? null;
      if (!after) for await (const event of client.events.iterate()) after = event.id;
      const stopping = new AbortController();
      process.once('SIGINT', () => stopping.abort());
      process.once('SIGTERM', () => stopping.abort());
      while (!stopping.signal.aborted) {
        for await (const event of client.events.iterate({ after })) {
          after = event.id;
          process.stdout.write(asJson() ? `${JSON.stringify(event)}\n` : `${event.createdAt}  ${event.type.padEnd(28)} ${event.id}\n`);
        }
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, o.interval);
          stopping.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
        });
      }
    });

  const payments = program.command('payments').description('your payments (/v1/payments)');
  payments
    .command('get <paymentId>')
    .description('one payment')
    .action(async (id: string) => print(await sdk().payments.get(id)));
  payments
    .command('list')
    .description('the payment of an externalId (the /v1 API lists payments by externalId only)')
    .requiredOption('--external-id <externalId>', 'your order id')
    .action(async (o: { externalId: string }) => print([await sdk().payments.getByExternalId(o.externalId)], { id: 'id', status: 'status', method: 'method', amount: 'amount', externalId: 'externalId', createdAt: 'created' }));

  const refunds = program.command('refunds').description('refunds of your payments (/v1/payments/{id}/refunds)');
  refunds
    .command('create <paymentId>')
    .description('give money back: the whole payment, or --amount cents')
    .requiredOption('--external-id <externalId>', 'your idempotency id for this refund: repeating it answers the same refund')
    .option('--amount <cents>', 'integer cents (default: everything still refundable)', positiveInt)
    .option('--reason <text>', 'why, for your records')
    .action(async (paymentId: string, o: { externalId: string; amount?: number; reason?: string }) =>
      print(await sdk().refunds.create(paymentId, { externalId: o.externalId, amount: o.amount, reason: o.reason })),
    );
  refunds
    .command('get <refundId>')
    .description('one refund')
    .action(async (id: string) => print(await sdk().refunds.get(id)));

  const sim = program.command('sim').description('in the sandbox: act as your customer or the gateway on your own payments and refunds');
  for (const [outcome, description] of [
    ['pay', 'the customer pays (Pix paid, card approved)'],
    ['decline', 'the gateway declines the payment'],
    ['expire', 'the Pix or checkout expires'],
  ] as const) {
    sim
      .command(`${outcome} <paymentId>`)
      .description(description)
      .action(async (paymentId: string) => print(await tool('simulators.payment', { paymentId, outcome })));
  }
  for (const [outcome, description] of [
    ['settle', 'the gateway settles a pending refund: the money went back'],
    ['fail', 'the gateway fails a pending refund'],
  ] as const) {
    sim
      .command(`refund-${outcome} <refundId>`)
      .description(description)
      .action(async (refundId: string) => print(await tool('simulators.refund', { refundId, outcome })));
  }

  registerCompletionCommand(program);
  return program;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('API key (sk_test_… or sk_live_…): ');
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0] ?? '';
}
