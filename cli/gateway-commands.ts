/** `gateway …` and `route …`: gateway accounts and routing rules of an environment. */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { GATEWAY_NAMES, ROUTING_METHODS, type GatewayName, type RoutingMethod } from '../server/contract/enums';
import { credentialIssues, GATEWAY_FORMS } from '../server/contract/gateway-credentials';
import { CliError } from './errors';
import { REFUND_SETTLEMENTS, SIM_OPERATIONS } from '../server/contract/sandbox-controls';
import { examples, type CliTools } from './tools';
import { ruleArgument, ruleText, type RuleArgument } from './routing-commands';

/** Credentials as inline JSON, or `@file.json` to keep them out of shell history. */
function credentialsArgument(value: string): Record<string, unknown> {
  const text = value.startsWith('@') ? readFileSync(value.slice(1), 'utf8') : value;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below without echoing the value, which is a secret
  }
  throw new InvalidArgumentError('expected a JSON object (or @path/to/file.json)');
}

/** One gateway's fields in one short line of --help: `  gateway_b: apiKey*, webhookToken* (* secret)`. */
const fieldsLine = (name: GatewayName) =>
  `  ${name}: ${GATEWAY_FORMS[name].fields.map((field) => `${field.name}${field.secret ? '*' : ''} (${field.minLength}+)`).join(', ')}`;

export function registerGatewayCommands(program: Command, { client, run, oneOf }: CliTools): void {
  const gateway = program.command('gateway').description('gateway accounts of an environment (credentials are stored encrypted)');
  const set = gateway
    .command('set')
    .description('configure a gateway in an environment (creates or replaces); a credential field left out keeps its stored value')
    .requiredOption('--env <environmentId>')
    .requiredOption('--gateway <name>', GATEWAY_NAMES.join('|'), oneOf(GATEWAY_NAMES))
    .requiredOption('--base-url <url>', 'the gateway API base URL')
    .option('--credentials <json|@file>', 'credentials object with the fields below (see gateway fields <gateway>); omitted: keep every stored one', credentialsArgument, {})
    .option('--disabled', 'configure it disabled')
    .action(run(async (o: { env: string; gateway: GatewayName; baseUrl: string; credentials: Record<string, unknown>; disabled?: boolean }) => {
      // Checked here against the gateway's description, as the service does; a field left out is the service's to keep or require.
      const issues = credentialIssues(o.gateway, o.credentials, GATEWAY_FORMS[o.gateway].fields.map((field) => field.name));
      if (issues.length > 0) throw new CliError('invalid', `${o.gateway} credentials: ${issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
      return client().gateways.configure.mutate({ environmentId: o.env, gateway: o.gateway, baseUrl: o.baseUrl, credentials: o.credentials, enabled: o.disabled ? false : undefined });
    }));
  set.addHelpText('after', `\nCredential fields (* secret; 8+: at least 8 characters; see gateway fields):\n${GATEWAY_NAMES.map(fieldsLine).join('\n')}`);
  examples(
    set,
    'gateway set --env env_… --gateway gateway_a --base-url https://api.gateway-a.example --credentials @gateway_a.json',
    'gateway set --env env_… --gateway gateway_b --base-url https://api.gateway-b.example --credentials \'{"apiKey":"…"}\'  # only the key changes',
  );
  examples(
    gateway
      .command('fields <gateway>')
      .description("a gateway's credential fields: what gateway set --credentials takes")
      .action(run(async (name: string) =>
        GATEWAY_FORMS[oneOf(GATEWAY_NAMES)(name)].fields.map((field) => ({ ...field, secret: field.secret ? 'yes' : 'no' })),
      { name: 'field', label: 'label', secret: 'secret', minLength: 'min length', help: 'what it is' })),
    'gateway fields gateway_b',
  );
  for (const [name, enabled] of [['enable', true], ['disable', false]] as const) {
    const toggle = gateway
      .command(`${name} <gateway>`)
      .description(`${name} a configured gateway (a disabled gateway gets no new payments: 409 provider_disabled)`)
      .requiredOption('--env <environmentId>')
      .action(run(async (name: string, o: { env: string }) =>
        client().gateways.setEnabled.mutate({ environmentId: o.env, gateway: oneOf(GATEWAY_NAMES)(name), enabled }),
      ));
    examples(toggle, `gateway ${name} gateway_a --env env_…`);
  }
  examples(
    gateway
      .command('list')
      .description("the gateway accounts of an environment, with each one's inbound webhook URL")
      .requiredOption('--env <environmentId>')
      .action(run(async (o: { env: string }) => client().gateways.list.query({ environmentId: o.env }), {
        id: 'id',
        gateway: 'gateway',
        enabled: 'enabled',
        baseUrl: 'base URL',
        credentialFields: 'credentials',
        webhookUrl: 'webhook URL',
        updatedAt: 'updated',
      })),
    'gateway list --env env_…',
  );

  const route = program.command('route').description('routing rules: which gateway serves PIX, CARD and SUBSCRIPTION');
  const routeSet = route
    .command('set')
    .argument('<method>', ROUTING_METHODS.join('|'))
    .argument('<gateways>', 'gateway[:weight],… in fallback order', ruleArgument)
    .description(
      `send new ${ROUTING_METHODS.join(', ')} resources of an environment to gateways: a list in fallback order (gateway_a,gateway_b: the next is tried only when one is down), ` +
        'optionally weighted to split new creates by externalId (gateway_a:80,gateway_b:20: whole numbers adding up to 100; a gateway at 0 is a fallback only)',
    )
    .requiredOption('--env <environmentId>')
    .action(run(async (method: string, gateways: RuleArgument[], o: { env: string }) => {
      const environmentId = o.env;
      const routingMethod = oneOf(ROUTING_METHODS)(method.toUpperCase()) as RoutingMethod;
      // One gateway without a weight is sent in the form of one gateway, which every service version understands.
      const [only] = gateways;
      return gateways.length === 1 && only!.weight === null
        ? client().routing.set.mutate({ environmentId, method: routingMethod, gateway: only!.gateway })
        : client().routing.set.mutate({ environmentId, method: routingMethod, gateways });
    }));
  examples(routeSet, 'route set PIX gateway_b --env env_…', 'route set PIX gateway_a,gateway_b --env env_…', 'route set PIX gateway_a:80,gateway_b:20 --env env_…', 'route set SUBSCRIPTION gateway_c --env env_…');
  examples(
    route
      .command('remove <method>')
      .description('remove the rule of a method (new resources of that method get 409 no_routing_rule)')
      .requiredOption('--env <environmentId>')
      .action(run(async (method: string, o: { env: string }) => client().routing.remove.mutate({ environmentId: o.env, method: oneOf(ROUTING_METHODS)(method.toUpperCase()) }))),
    'route remove CARD --env env_…',
  );
  examples(
    route
      .command('list')
      .description('the routing rules of an environment: each method\'s gateways in fallback order, with their weights')
      .requiredOption('--env <environmentId>')
      .action(run(async (o: { env: string }) => (await client().routing.list.query({ environmentId: o.env })).map((rule) => ({ ...rule, order: ruleText(rule.gateways) })), {
        method: 'method',
        order: 'gateways (fallback order[:weight])',
      })),
    'route list --env env_…',
  );
}

/** `sim …`: outcomes at the sandbox gateways of the embedded demo. */
export function registerSimulatorCommands(program: Command, { client, run, oneOf }: CliTools): void {
  const sim = program.command('sim').description('act as the customer or the gateway in the embedded demo sandbox');
  examples(sim.command('list').description('the simulators running in the service').action(run(async () => client().simulators.list.query())), 'sim list');
  for (const [outcome, description] of [
    ['pay', 'the customer pays (Pix paid, card approved)'],
    ['decline', 'the gateway declines the payment'],
    ['expire', 'the Pix or checkout expires'],
  ] as const) {
    examples(
      sim
        .command(`${outcome} <paymentId>`)
        .description(description)
        .action(run(async (paymentId: string) => client().simulators.payment.mutate({ paymentId, outcome }))),
      `sim ${outcome} pay_…`,
    );
  }
  for (const [outcome, description] of [
    ['complete-checkout', 'the customer registers a card at the subscription checkout'],
    ['renew', 'the cycle ends and the recurring charge is paid'],
    ['charge-failure', 'a recurring charge attempt fails'],
    ['past-due', 'the gateway gives up retrying: past due'],
    ['end-trial', 'the trial ends'],
  ] as const) {
    examples(
      sim
        .command(`${outcome} <subscriptionId>`)
        .description(description)
        .action(run(async (subscriptionId: string) => client().simulators.subscription.mutate({ subscriptionId, outcome }))),
      `sim ${outcome} sub_…`,
    );
  }
  for (const [outcome, description] of [
    ['settle', 'the gateway settles a pending refund: the money went back'],
    ['fail', 'the gateway fails a pending refund (Pix: NAO_REALIZADO)'],
  ] as const) {
    examples(
      sim
        .command(`refund-${outcome} <refundId>`)
        .description(`${description}; a gateway's own refund id (re_…, est_…, rf_…, a devolução id or rtrId) needs --gateway (operators)`)
        .option('--gateway <name>', GATEWAY_NAMES.join('|'), oneOf(GATEWAY_NAMES))
        .action(run(async (refundId: string, o: { gateway?: GatewayName }) => client().simulators.refund.mutate({ refundId, gateway: o.gateway, outcome }))),
      `sim refund-${outcome} ref_…`,
      `sim refund-${outcome} re_… --gateway gateway_a`,
    );
  }
  examples(
    sim
      .command('refund-settlement <gateway> <mode>')
      .description('later: refunds stay pending until sim refund-settle/refund-fail (the default); at-once: new refunds are answered already settled')
      .action(run(async (name: string, mode: string) =>
        client().simulators.refundSettlement.mutate({ gateway: oneOf(GATEWAY_NAMES)(name), mode: oneOf(REFUND_SETTLEMENTS)(mode) }),
      )),
    'sim refund-settlement gateway_a at-once',
  );
  const fault = sim
    .command('fault <gateway> <operation> <kind>')
    .description(`make the next calls misbehave; operations: ${SIM_OPERATIONS.join(', ')}; kinds: latency, hang, server_error, client_error, validation, malformed, drop_response, late_response (--ms)`)
    .option('--times <n>', 'how many calls', (v) => Number(v), 1)
    .option('--ms <n>', 'latency in milliseconds', (v) => Number(v))
    .option('--status <n>', 'HTTP status for server_error/client_error/malformed', (v) => Number(v))
    .option('--field <name>', "the gateway's field a validation refusal names")
    .action(run(async (name: string, operation: string, kind: string, o: { times: number; ms?: number; status?: number; field?: string }) =>
      client().simulators.fault.mutate({
        gateway: oneOf(GATEWAY_NAMES)(name),
        operation: oneOf(SIM_OPERATIONS)(operation),
        fault: { kind, ms: o.ms, status: o.status, field: o.field } as never,
        times: o.times,
      }),
    ));
  examples(fault, 'sim fault gateway_a createPayment drop_response', 'sim fault gateway_b getPayment latency --ms 3000 --times 2');
  examples(
    sim
      .command('clear-faults <gateway>')
      .description('forget the faults still pending at a gateway')
      .action(run(async (name: string) => client().simulators.clearFaults.mutate({ gateway: oneOf(GATEWAY_NAMES)(name) }))),
    'sim clear-faults gateway_a',
  );
  const replay = sim
    .command('replay <gateway>')
    .description('send the last webhooks again')
    .option('--last <n>', 'how many', (v) => Number(v), 1)
    .option('--reverse', 'newest first')
    .action(run(async (name: string, o: { last: number; reverse?: boolean }) =>
      client().simulators.replay.mutate({ gateway: oneOf(GATEWAY_NAMES)(name), last: o.last, reverse: Boolean(o.reverse) }),
    ));
  examples(replay, 'sim replay gateway_b --last 3 --reverse');
}
