/**
 * The audit log as a table, newest first: time, who, what, on which record,
 * from where. Each row's "Changes" button opens its before and after below
 * it. Filters by action (a prefix: `routing.` is every routing change), actor
 * (e-mail or id) and time; "Load more" reads the next page.
 */
import { Button, Card, Code, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Fragment, useState, type FormEvent } from 'react';
import { api, type Inputs, type Outputs } from '../api/client';
import { DataTable } from '../ui/DataTable';
import { formatDateTime } from '../ui/format';
import { Failed, Loading } from '../ui/states';
import { AuditDiff } from './AuditDiff';

type Entry = Outputs['audit']['list']['items'][number];
type Filter = Pick<Inputs['audit']['list'], 'action' | 'actor' | 'from' | 'to'>;

const ACTOR_KIND: Record<Entry['actor']['kind'], string> = { user: 'user', operator: 'operator', sandbox_key: 'sandbox key', system: 'system' };

function actorOf(entry: Entry) {
  const who = entry.actor.email ?? entry.actor.id ?? (entry.actor.kind === 'operator' ? 'admin token' : 'the service');
  return (
    <>
      <Text size="sm" style={{ wordBreak: 'break-all' }}>
        {who}
      </Text>
      <Text size="xs" c="dimmed">
        {ACTOR_KIND[entry.actor.kind]}
      </Text>
    </>
  );
}

/** A day typed in the filter (`2026-11-25`) as the instant it starts, in UTC. */
const dayStart = (day: string) => (day ? `${day}T00:00:00Z` : undefined);
const dayAfter = (day: string) => (day ? new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString() : undefined);

function FilterForm({ onApply }: { onApply: (filter: Filter) => void }) {
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ action: action.trim() || undefined, actor: actor.trim() || undefined, from: dayStart(from), to: dayAfter(to) });
  };
  return (
    <form onSubmit={submit} aria-label="Filter the audit log">
      <Group align="end" gap="sm" wrap="wrap">
        <TextInput label="Action" description="A prefix: routing. is every routing change" value={action} onChange={(e) => setAction(e.currentTarget.value)} w={240} />
        <TextInput label="Actor" description="E-mail or id" value={actor} onChange={(e) => setActor(e.currentTarget.value)} w={240} />
        <TextInput label="From (day, UTC)" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} w={170} />
        <TextInput label="To (day, UTC)" type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} w={170} />
        <Button type="submit" variant="light">
          Apply
        </Button>
      </Group>
    </form>
  );
}

/** `organizationId` undefined: every organization's log (an operator's view), with an Organization column. */
export function AuditLog({ organizationId }: { organizationId?: string }) {
  const [filter, setFilter] = useState<Filter>({});
  const [open, setOpen] = useState<string | null>(null);
  const all = organizationId === undefined;
  const pages = useInfiniteQuery({
    queryKey: ['audit', 'list', organizationId ?? 'all', filter],
    queryFn: ({ pageParam }) => api.audit.list.query({ ...(organizationId ? { organizationId } : {}), ...filter, limit: 50, ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
  const entries = pages.data?.pages.flatMap((page) => page.items) ?? [];
  const columns = ['Time', 'Actor', 'Action', all && 'Organization', 'Target', 'Address', 'Changes'];
  return (
    <Stack>
      <Card withBorder>
        <FilterForm
          onApply={(next) => {
            setOpen(null);
            setFilter(next);
          }}
        />
      </Card>
      {pages.error ? (
        <Failed error={pages.error} />
      ) : pages.isPending ? (
        <Loading />
      ) : entries.length === 0 ? (
        <Text>No changes recorded{Object.values(filter).some(Boolean) ? ' match these filters' : ' yet'}.</Text>
      ) : (
        <DataTable label="Audit log" minWidth={900} columns={columns}>
          {entries.map((entry) => {
            const expanded = open === entry.id;
            const panelId = `audit-${entry.id}`;
            return (
              <Fragment key={entry.id}>
                <Table.Tr data-testid="audit-row" data-action={entry.action}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(entry.createdAt)}</Table.Td>
                  <Table.Td>{actorOf(entry)}</Table.Td>
                  <Table.Td>
                    <Code>{entry.action}</Code>
                  </Table.Td>
                  {all && <Table.Td>{entry.organizationName ?? entry.organizationId ?? 'platform'}</Table.Td>}
                  <Table.Td>
                    <Text size="sm">{entry.target.type.replaceAll('_', ' ')}</Text>
                    {entry.target.id && (
                      <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
                        {entry.target.id}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" title={entry.userAgent ?? undefined}>
                      {entry.address ?? '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Button size="xs" variant="default" aria-expanded={expanded} aria-controls={panelId} onClick={() => setOpen(expanded ? null : entry.id)}>
                      {expanded ? 'Hide' : 'Show'} changes
                    </Button>
                  </Table.Td>
                </Table.Tr>
                {expanded && (
                  <Table.Tr id={panelId}>
                    <Table.Td colSpan={columns.filter(Boolean).length}>
                      <AuditDiff before={entry.before} after={entry.after} label={`Before and after: ${entry.action}`} />
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            );
          })}
        </DataTable>
      )}
      {pages.hasNextPage && (
        <Group>
          <Button variant="default" onClick={() => pages.fetchNextPage()} loading={pages.isFetchingNextPage}>
            Load more
          </Button>
        </Group>
      )}
    </Stack>
  );
}
