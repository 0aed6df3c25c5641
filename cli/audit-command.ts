/**
 * `audit list`: who changed what in an organization (keys, routing, gateways,
 * endpoints, members, billing, quota), from where, newest first. The admin
 * token reads every organization's log; --json has each entry's before and
 * after (secrets are never recorded: they read "set" or "changed").
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { Columns } from './output';
import { examples, type CliTools } from './tools';

const COLUMNS: Columns = {
  createdAt: 'time',
  actor: 'actor',
  action: 'action',
  organization: 'organization',
  target: 'target',
  address: 'address',
};

function count(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 100) throw new InvalidArgumentError('expected a whole number from 1 to 100');
  return Number(value);
}

export function registerAuditCommands(program: Command, { client, run }: CliTools): void {
  const audit = program.command('audit').description('the audit log: every configuration change, who made it, from where, before and after');
  examples(
    audit
      .command('list')
      .description('changes newest first, of every organization or of one; --cursor continues where a previous page stopped (printed last with --json)')
      .option('--org <organizationId>', "only this organization's changes")
      .option('--action <prefix>', 'only actions starting so: routing. (every routing change), api_key.revoked')
      .option('--actor <emailOrId>', 'only what this user (e-mail as it was then, or id) or key did')
      .option('--target <id>', 'only changes of this record (key_…, usr_…, a routing method…)')
      .option('--limit <n>', 'at most this many (1-100, default 25)', count)
      .option('--cursor <cursor>', 'the nextCursor of a previous page')
      .action(
        run(async (o: { org?: string; action?: string; actor?: string; target?: string; limit?: number; cursor?: string }) => {
          const page = await client().audit.list.query({
            ...(o.org ? { organizationId: o.org } : {}),
            ...(o.action ? { action: o.action } : {}),
            ...(o.actor ? { actor: o.actor } : {}),
            ...(o.target ? { targetId: o.target } : {}),
            ...(o.limit ? { limit: o.limit } : {}),
            ...(o.cursor ? { cursor: o.cursor } : {}),
          });
          return page.items.map((entry) => ({
            id: entry.id,
            createdAt: entry.createdAt,
            actor: entry.actor.email ?? entry.actor.id ?? (entry.actor.kind === 'operator' ? 'admin token' : entry.actor.kind),
            action: entry.action,
            organization: entry.organizationName ?? entry.organizationId ?? 'platform',
            target: `${entry.target.type}${entry.target.id ? ` ${entry.target.id}` : ''}`,
            address: entry.address,
            before: entry.before,
            after: entry.after,
            ...(page.nextCursor && entry === page.items.at(-1) ? { nextCursor: page.nextCursor } : {}),
          }));
        }, COLUMNS),
      ),
    'audit list --org org_… --limit 10',
    'audit list --action routing.rule --actor owner@example.com',
    "--json audit list --org org_… --action api_key. | jq '.[] | {action, before, after}'",
  );
}
