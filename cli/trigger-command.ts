/**
 * `trigger <event-type> [--env <env_id>]`: produces one event of the contract
 * in a sandbox environment, the way an integration and its customer would (a
 * payment or subscription created with the environment's routing, then what
 * the customer or the gateway does at the sandbox simulator, or a cancel),
 * and prints what it created. With `webhook listen` running, the events
 * arrive at the local receiver. With a sandbox API key (`--api-key`,
 * PAYMENTS_API_KEY) instead of the admin token: in the key's environment.
 */
import { TRPCClientError } from '@trpc/client';
import { Argument, type Command } from 'commander';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../server/contract/event-types';
import { operatorClient } from './client';
import { API_KEY_OPTION_HELP, devCredential, KEY_HINT } from './credentials';
import { CliError } from './errors';
import { examples, type CliTools } from './tools';

export function registerTriggerCommand(program: Command, { client }: CliTools): void {
  const trigger = program
    .command('trigger')
    .description('produce an event of the contract in a sandbox environment, as an integration and its customer would')
    // Checked by commander while parsing: an unknown type is a usage error (exit 2) listing the known ones.
    .addArgument(new Argument('<event-type>', 'the event to produce').choices(WEBHOOK_EVENT_TYPES))
    .option('--env <environmentId>', 'sandbox environment (default: the only one, as in the embedded demo; with --api-key: the key\'s own)')
    .option('--api-key <key>', API_KEY_OPTION_HELP)
    .action(async (eventType: WebhookEventType, o: { env?: string; apiKey?: string }) => {
      const { url, token } = program.opts<{ url: string; token?: string }>();
      const credential = devCredential({ token, apiKey: o.apiKey }, process.env);
      const caller = credential.kind === 'admin' ? client() : operatorClient(url, credential.bearer);
      const result = await caller.simulators.trigger.mutate({ eventType, environmentId: o.env }).catch((error: unknown) => {
        // The generic hint names the admin token; a refused key gets its own.
        if (credential.kind === 'apiKey' && error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === 'UNAUTHORIZED') {
          throw new CliError('unauthorized', `${error.message} ${KEY_HINT}`);
        }
        throw error;
      });
      if (program.opts<{ json?: boolean }>().json) return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      const lines = [`Triggered ${result.eventType} in ${result.environmentId}`];
      for (const step of result.steps) lines.push(`  ${step.action.padEnd(24)} ${step.resourceId}  → ${step.status}`);
      lines.push('Events:');
      for (const event of result.events) lines.push(`  ${event.type.padEnd(28)} ${event.id}  (${event.resourceId})`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
  examples(
    trigger,
    'trigger payment.paid',
    'trigger subscription.renewed --env env_…',
    'trigger payment.paid --api-key sk_test_…          # or PAYMENTS_API_KEY: the key\'s environment',
    "--json trigger payment.failed | jq -r '.events[].id'",
  );
}
