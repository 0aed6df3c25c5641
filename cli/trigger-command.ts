/**
 * `trigger <event-type> [--env <env_id>]`: produces one event of the contract
 * in a sandbox environment, the way an integration and its customer would (a
 * payment or subscription created with the environment's routing, then what
 * the customer or the gateway does at the sandbox simulator, or a cancel),
 * and prints what it created. With `webhook listen` running, the events
 * arrive at the local receiver.
 */
import { Argument, type Command } from 'commander';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../server/contract/event-types';
import { examples, type CliTools } from './tools';

export function registerTriggerCommand(program: Command, { client }: CliTools): void {
  const trigger = program
    .command('trigger')
    .description('produce an event of the contract in a sandbox environment, as an integration and its customer would')
    // Checked by commander while parsing: an unknown type is a usage error (exit 2) listing the known ones.
    .addArgument(new Argument('<event-type>', 'the event to produce').choices(WEBHOOK_EVENT_TYPES))
    .option('--env <environmentId>', 'sandbox environment (default: the only one, as in the embedded demo)')
    .action(async (eventType: WebhookEventType, o: { env?: string }) => {
      const result = await client().simulators.trigger.mutate({ eventType, environmentId: o.env });
      if (program.opts<{ json?: boolean }>().json) return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      const lines = [`Triggered ${result.eventType} in ${result.environmentId}`];
      for (const step of result.steps) lines.push(`  ${step.action.padEnd(24)} ${step.resourceId}  → ${step.status}`);
      lines.push('Events:');
      for (const event of result.events) lines.push(`  ${event.type.padEnd(28)} ${event.id}  (${event.resourceId})`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
  examples(trigger, 'trigger payment.paid', 'trigger subscription.renewed --env env_…', "--json trigger payment.failed | jq -r '.events[].id'");
}
