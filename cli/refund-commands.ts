/**
 * `refund create|show|list`: giving a paid payment's money back (decision 18),
 * through the same use case as POST /v1/payments/{id}/refunds. A refund's
 * final state comes from its gateway: `create` usually prints it `pending`,
 * and `show` tells later whether it succeeded or failed.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { PAGE_SIZE } from '../server/contract/operator/listing';
import { CliError } from './errors';
import type { Columns } from './output';
import { examples, type CliTools } from './tools';

/** Amounts are integer cents, as everywhere in the API. */
function cents(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('expected a positive integer number of cents (1050 is 10.50)');
  return Number(value);
}

const COLUMNS: Columns = {
  id: 'id',
  status: 'status',
  amount: 'amount',
  paymentId: 'payment',
  externalId: 'externalId',
  reason: 'reason',
  createdAt: 'created',
};

export function registerRefundCommands(program: Command, { client, run }: CliTools): void {
  const refund = program.command('refund').description("refunds: a paid payment's money back to the customer, in full or in part");

  /** The environment a payment lives in (the operator API scopes refunds by environment). */
  const environmentOf = async (paymentId: string) => (await client().payments.get.query({ paymentId })).payment.environmentId;

  examples(
    refund
      .command('create <paymentId>')
      .description('refund a paid payment: all that is still refundable, or --amount cents of it; usually pending until the gateway settles it')
      .option('--amount <cents>', 'integer cents to give back (default: all that is still refundable)', cents)
      .option('--reason <text>', 'why, kept with the refund')
      .option('--external-id <id>', 'your idempotency key: repeating it returns the same refund, never a second one (default: a new one, printed)')
      .action(run(async (paymentId: string, o: { amount?: number; reason?: string; externalId?: string }) => {
        const environmentId = await environmentOf(paymentId);
        return client().refunds.create.mutate({
          environmentId,
          paymentId,
          // Without one the service makes one, printed with the refund; pass --external-id to retry safely after a lost answer.
          ...(o.externalId !== undefined ? { externalId: o.externalId } : {}),
          ...(o.amount !== undefined ? { amount: o.amount } : {}),
          ...(o.reason !== undefined ? { reason: o.reason } : {}),
        });
      })),
    'refund create pay_…',
    'refund create pay_… --amount 1000 --reason "one item returned" --external-id return-4711',
  );
  examples(
    refund
      .command('show <refundId>')
      .description('one refund and its state at the gateway as last heard (pending, succeeded, failed)')
      .action(run(async (refundId: string) => client().refunds.get.query({ refundId }))),
    'refund show ref_…',
  );
  examples(
    refund
      .command('list')
      .description("an environment's refunds, or one payment's, newest first")
      .option('--env <environmentId>', 'every refund of this environment')
      .option('--payment <paymentId>', "only this payment's refunds")
      .action(run(async (o: { env?: string; payment?: string }) => {
        if (!o.env && !o.payment) throw new CliError('usage', 'refund list needs --env <environmentId> or --payment <paymentId>');
        const environmentId = o.env ?? (await environmentOf(o.payment!));
        // The newest page of the largest size the list gives (a payment has a few refunds; an environment's newest are shown).
        return (await client().refunds.list.query({ environmentId, ...(o.payment ? { paymentId: o.payment } : {}), limit: PAGE_SIZE.max })).items;
      }, COLUMNS)),
    'refund list --payment pay_…',
    "--json refund list --env env_… | jq -r '.[] | select(.status == \"failed\") | .id'",
  );
}
