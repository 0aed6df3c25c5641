/**
 * Routing as operators read it (decision 21): `route set` with an ordered
 * list and weights, `route explain` (the dry run), `gateway health` and
 * `payment trace`. `route set|list|remove` and `gateway set|list|…` live in
 * gateway-commands.ts; these join the same command groups.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { GATEWAY_NAMES, ROUTING_METHODS, type GatewayName } from '../server/contract/enums';
import { examples, type CliTools } from './tools';

export interface RuleArgument {
  gateway: GatewayName;
  weight: number | null;
}

/**
 * `gateway_a,gateway_b` (the order is the fallback order) or
 * `gateway_a:80,gateway_b:20` (weights split new creates; whole numbers
 * 0-100, given for every gateway, adding up to 100). One gateway without a
 * weight is the rule of one gateway, as before lists.
 */
export function ruleArgument(value: string): RuleArgument[] {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.some((part) => part === '')) throw new InvalidArgumentError('expected gateways separated by commas, e.g. gateway_a,gateway_b or gateway_a:80,gateway_b:20');
  const rule = parts.map((part): RuleArgument => {
    const [name, weight, extra] = part.split(':');
    if (!(GATEWAY_NAMES as readonly string[]).includes(name!)) throw new InvalidArgumentError(`unknown gateway "${name}": expected ${GATEWAY_NAMES.join(', ')}`);
    if (extra !== undefined) throw new InvalidArgumentError(`"${part}": expected gateway or gateway:weight`);
    if (weight === undefined) return { gateway: name as GatewayName, weight: null };
    if (!/^\d{1,3}$/.test(weight) || Number(weight) > 100) throw new InvalidArgumentError(`weight of ${name} must be a whole number from 0 to 100 (got "${weight}")`);
    return { gateway: name as GatewayName, weight: Number(weight) };
  });
  const names = rule.map((g) => g.gateway);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated) throw new InvalidArgumentError(`${repeated} appears twice: each gateway may appear once in a rule`);
  const weights = rule.filter((g) => g.weight !== null);
  if (weights.length > 0 && weights.length < rule.length) throw new InvalidArgumentError('weights are all or none: give every gateway a weight, e.g. gateway_a:80,gateway_b:20');
  const total = weights.reduce((sum, g) => sum + g.weight!, 0);
  if (weights.length > 0 && total !== 100) throw new InvalidArgumentError(`weights must add up to 100 (these add up to ${total})`);
  return rule;
}

/** A rule as one line: `gateway_a:80 > gateway_b:20`. */
export const ruleText = (gateways: { gateway: string; weight: number | null }[]): string =>
  gateways.map(({ gateway, weight }) => (weight === null ? gateway : `${gateway}:${weight}`)).join(' > ');

/** The group named `name`, made when no other file made it. */
function group(program: Command, name: string, description: string): Command {
  return program.commands.find((command) => command.name() === name) ?? program.command(name).description(description);
}

export function registerRoutingCommands(program: Command, { client, run, oneOf }: CliTools): void {
  const route = group(program, 'route', 'routing rules: which gateways serve PIX, CARD and SUBSCRIPTION');
  examples(
    route
      .command('explain')
      .description('the dry run: which gateway would take a create now, and why (each candidate with its breaker state); calls no gateway')
      .requiredOption('--env <environmentId>')
      .requiredOption('--method <method>', ROUTING_METHODS.join('|'), (value: string) => oneOf(ROUTING_METHODS)(value.toUpperCase()))
      .option('--external-id <externalId>', 'where a weighted rule sends this externalId')
      .action(run(async (o: { env: string; method: (typeof ROUTING_METHODS)[number]; externalId?: string }) =>
        client().routing.explain.query({ environmentId: o.env, method: o.method, ...(o.externalId !== undefined ? { externalId: o.externalId } : {}) }),
      )),
    'route explain --env env_… --method PIX',
    'route explain --env env_… --method PIX --external-id order-1042',
  );

  const gateway = group(program, 'gateway', 'gateway accounts of an environment (credentials are stored encrypted)');
  examples(
    gateway
      .command('health')
      .description("each gateway's recent creates (successes, failures, timeouts, latency) and its circuit breaker: closed, open (skipped until openUntil) or half_open (the next create probes it)")
      .requiredOption('--env <environmentId>')
      .action(run(async (o: { env: string }) => client().routing.health.query({ environmentId: o.env }), {
        gateway: 'gateway',
        state: 'breaker',
        successes: 'ok',
        failures: 'failed',
        timeouts: 'timeouts',
        p50Ms: 'p50 ms',
        p95Ms: 'p95 ms',
        openUntil: 'open until',
        lastFailureAt: 'last failure',
      })),
    'gateway health --env env_…',
  );

  const payment = group(program, 'payment', 'payments, as operators read them');
  examples(
    payment
      .command('trace <paymentId>')
      .description('how routing chose the gateway of a payment: the rule, the candidates, each attempt (gateway, outcome, when, how long) and the gateway that took it')
      .action(run(async (paymentId: string) => {
        const { routingTrace } = await client().payments.get.query({ paymentId });
        return { gateway: routingTrace.gateway, rule: ruleText(routingTrace.rule), reason: routingTrace.reason, attempts: routingTrace.attempts, candidates: routingTrace.candidates };
      })),
    'payment trace pay_…',
    'payment trace pay_… --json | jq -r .attempts[].outcome',
  );
  const subscription = group(program, 'subscription', 'subscriptions, as operators read them');
  examples(
    subscription
      .command('trace <subscriptionId>')
      .description('how routing chose the gateway of a subscription (as payment trace)')
      .action(run(async (subscriptionId: string) => {
        const { routingTrace } = await client().subscriptions.get.query({ subscriptionId });
        return { gateway: routingTrace.gateway, rule: ruleText(routingTrace.rule), reason: routingTrace.reason, attempts: routingTrace.attempts, candidates: routingTrace.candidates };
      })),
    'subscription trace sub_…',
  );
}
