/**
 * `reconciliation status [--env <env_id>] [--limit N]`: what background
 * reconciliation has left to read and what the gateways lost. People get one
 * summary line and a table whose times are relative to now (what a person
 * asks is "how late", not "at what instant"); `--json` prints the operator
 * API's answer as it came, with every timestamp.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { OperatorClient } from './client';
import { renderTable, terminalWidth } from './output';
import { examples, type CliTools } from './tools';

export type ReconciliationStatus = Awaited<ReturnType<OperatorClient['reconciliation']['status']['query']>>;

/** The operator API takes 1 to 500; said here so a wrong value is a usage error before any request. */
const MAX_LIMIT = 500;
function limit(value: string): number {
  if (!/^[1-9]\d*$/.test(value) || Number(value) > MAX_LIMIT) throw new InvalidArgumentError(`expected an integer from 1 to ${MAX_LIMIT}`);
  return Number(value);
}

/** 45s, 12m, 3h 5m, 2d 4h: two units at most, enough to tell late from very late. */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours}h ${minutes % 60}m` : `${hours}h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days}d ${hours % 24}h` : `${days}d`;
}

const ago = (iso: string, now: number) => `${duration(now - Date.parse(iso))} ago`;

function nextRead(item: ReconciliationStatus['items'][number], now: number): string {
  if (item.lostAt) return `lost ${ago(item.lostAt, now)}`;
  if (!item.nextReadAt) return '-';
  const due = Date.parse(item.nextReadAt) - now;
  return due > 0 ? `in ${duration(due)}` : `overdue ${duration(-due)}`;
}

/**
 * The summary line, then the items. The columns go most telling first: a
 * narrow terminal drops them from the right, and the kind is the one to lose
 * (the id's prefix, pay_ or sub_, says it too).
 */
export function formatReconciliationStatus(status: ReconciliationStatus, options: { now: number; width: number; environmentId: string | null }): string {
  const { now, width, environmentId } = options;
  const platformWide = environmentId === null;
  // Counts are exact up to 10,000, then flagged (decision 25).
  const count = (name: 'scheduled' | 'overdue' | 'lost') => `${status[name]}${status.more[name] ? '+' : ''}`;
  const overdue = status.overdue > 0 && status.oldestOverdueAt ? `${count('overdue')} overdue (oldest by ${duration(now - Date.parse(status.oldestOverdueAt))})` : `${count('overdue')} overdue`;
  const where = environmentId ?? 'all environments';
  // The scope on a line of its own: with an environment's id in it, the summary would not fit 80 columns.
  let text = `Reconciliation of ${where}\n${count('scheduled')} waiting for a read, ${overdue}, ${count('lost')} lost by their gateway\n`;
  if (status.items.length === 0) return `${text}Nothing is waiting for a read and no gateway lost anything.\n`;
  const rows = status.items.map((item) => ({
    id: item.id,
    status: item.status,
    next: nextRead(item, now),
    last: item.lastReadAt ? ago(item.lastReadAt, now) : 'never',
    reads: item.reads,
    gateway: item.gateway,
    kind: item.kind,
    ...(platformWide ? { environmentId: item.environmentId } : {}),
  }));
  text += `\n${renderTable(rows, { id: 'id', status: 'status', next: 'next read', last: 'last read', reads: 'reads', gateway: 'gateway', kind: 'kind', ...(platformWide ? { environmentId: 'environment' } : {}) }, width)}`;
  const total = status.scheduled + status.lost;
  const more = status.more.scheduled || status.more.lost ? '+' : '';
  if (status.items.length < total) text += `(the first ${status.items.length} of ${total}${more}: lost first, then the next due; --limit up to ${MAX_LIMIT} shows more)\n`;
  return text;
}

export function registerReconciliationCommands(program: Command, { client }: CliTools): void {
  const reconciliation = program.command('reconciliation').description('background reads of unfinished payments and subscriptions from their gateways');
  examples(
    reconciliation
      .command('status')
      .description('how many resources wait for a read, how many are overdue, which ones their gateway lost (first), then the next reads due')
      .option('--env <environmentId>', 'one environment (default: every environment)')
      .option('--limit <n>', `list at most this many (default 50, max ${MAX_LIMIT})`, limit)
      .action(async (o: { env?: string; limit?: number }) => {
        const status = await client().reconciliation.status.query({ environmentId: o.env, limit: o.limit });
        if (program.opts<{ json?: boolean }>().json) return void process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
        process.stdout.write(formatReconciliationStatus(status, { now: Date.now(), width: terminalWidth(), environmentId: o.env ?? null }));
      }),
    'reconciliation status',
    'reconciliation status --env env_… --limit 200',
    "--json reconciliation status | jq -r '.items[] | select(.lostAt) | .id'",
  );
}
