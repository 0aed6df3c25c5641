/**
 * Background reconciliation as a person sees it: how many unfinished payments
 * and subscriptions wait for their next read from the gateway, how many of
 * those reads are overdue, and which resources the gateway no longer knows
 * (listed first: nothing will ever read them again, so someone has to look).
 * One environment (its home page) or every environment (the operator page).
 */
import { Anchor, Badge, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, type Outputs } from '../api/client';
import { resolveScope, useTenancy } from '../shell/scope';
import { formatDateTime, formatRelative } from '../ui/format';
import { Empty, Failed, Loading } from '../ui/states';
import { Figure } from '../ui/Figure';
import { StatusBadge } from '../ui/StatusBadge';

type Status = Outputs['reconciliation']['status'];
type Item = Status['items'][number];

/** Enough to see what needs a look; the CLI and the API list up to 500. */
const SHOWN = 20;

/** A time in words, with the exact instant on hover. */
function When({ iso, now, prefix = '' }: { iso: string | null; now: number; prefix?: string }) {
  if (!iso) return <Text span size="sm" c="dimmed">never</Text>;
  return (
    <Text span size="sm" title={formatDateTime(iso)}>
      {prefix}
      {formatRelative(iso, now)}
    </Text>
  );
}

function NextRead({ item, now }: { item: Item; now: number }) {
  if (item.lostAt) {
    return (
      <Group gap={6} wrap="nowrap">
        <Badge color="red" variant="light" radius="sm">
          lost
        </Badge>
        <When iso={item.lostAt} now={now} />
      </Group>
    );
  }
  if (item.nextReadAt && Date.parse(item.nextReadAt) <= now) {
    return (
      <Text span size="sm" c="orange.8" title={formatDateTime(item.nextReadAt)}>
        overdue, due {formatRelative(item.nextReadAt, now)}
      </Text>
    );
  }
  return <When iso={item.nextReadAt} now={now} />;
}

/** An environment as people know it (organization / project, sandbox or production); its id where the caller cannot see it. */
function EnvironmentName({ environmentId }: { environmentId: string }) {
  const { environment, project, organization } = resolveScope(useTenancy(), environmentId);
  if (!environment || !project || !organization) return <Text span ff="monospace" fz="sm">{environmentId}</Text>;
  return (
    <Text span size="sm" title={environmentId}>
      {organization.name} / {project.name} · {environment.kind}
    </Text>
  );
}

export function ReconciliationCard({ environmentId }: { environmentId?: string }) {
  const platformWide = environmentId === undefined;
  const status = useQuery({
    queryKey: ['reconciliation', 'status', environmentId ?? 'all'],
    queryFn: () => api.reconciliation.status.query({ environmentId, limit: SHOWN }),
    refetchInterval: 30_000,
  });
  const now = Date.now();
  const data = status.data;
  const total = data ? data.scheduled + data.lost : 0;
  return (
    <Card withBorder component="section" aria-label="Reconciliation">
      <Stack gap="sm">
        <div>
          <Title order={2} size="h4">
            Reconciliation
          </Title>
          <Text size="sm" c="dimmed">
            Unfinished payments and subscriptions are read back from their gateway on a schedule{platformWide ? ', in every environment' : ''}.
          </Text>
        </div>
        {status.error ? (
          <Failed error={status.error} />
        ) : !data ? (
          <Loading />
        ) : (
          <>
            <SimpleGrid cols={{ base: 1, xs: 3 }}>
              <Figure label="Waiting for a read" value={data.scheduled} more={data.more.scheduled} />
              <Figure label="Overdue" value={data.overdue} more={data.more.overdue} tone="orange.8" detail={data.oldestOverdueAt ? `oldest due ${formatRelative(data.oldestOverdueAt, now)}` : undefined} />
              <Figure label="Lost by the gateway" value={data.lost} more={data.more.lost} tone="red.7" detail={data.lost > 0 ? 'the gateway no longer knows them; they are not read again' : undefined} />
            </SimpleGrid>
            {data.items.length === 0 ? (
              <Empty>Nothing is waiting for a read, and no gateway has lost anything.</Empty>
            ) : (
              // Cells keep to one line (ids, badges and times cut in two read badly); a narrow screen scrolls the table sideways,
              // so what needs a look (status, next read or lost) comes right after the id, and the environment last.
              <Table.ScrollContainer minWidth={platformWide ? 1040 : 800}>
                <Table aria-label="Reconciliation items" verticalSpacing="xs" style={{ whiteSpace: 'nowrap' }}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Kind</Table.Th>
                      <Table.Th>Id</Table.Th>
                      <Table.Th>Status</Table.Th>
                      <Table.Th>Next read</Table.Th>
                      <Table.Th>Last read</Table.Th>
                      <Table.Th>Gateway</Table.Th>
                      {platformWide && <Table.Th>Environment</Table.Th>}
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {data.items.map((item) => (
                      <Table.Tr key={item.id}>
                        <Table.Td>{item.kind === 'payment' ? 'Payment' : 'Subscription'}</Table.Td>
                        <Table.Td>
                          <Anchor component={Link} to={`/e/${item.environmentId}/${item.kind === 'payment' ? 'payments' : 'subscriptions'}/${item.id}`} ff="monospace" size="sm">
                            {item.id}
                          </Anchor>
                        </Table.Td>
                        {/* A badge shrinks to an ellipsis where the table is tight: these cells keep room for a whole word. */}
                        <Table.Td miw={110}>
                          <StatusBadge status={item.status} />
                        </Table.Td>
                        <Table.Td miw={190}>
                          <NextRead item={item} now={now} />
                        </Table.Td>
                        <Table.Td>
                          <When iso={item.lastReadAt} now={now} />
                        </Table.Td>
                        <Table.Td>{item.gateway}</Table.Td>
                        {platformWide && (
                          <Table.Td>
                            <EnvironmentName environmentId={item.environmentId} />
                          </Table.Td>
                        )}
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
            {data.items.length < total && (
              <Text size="xs" c="dimmed">
                The first {data.items.length} of {total}: the lost first, then the next reads due.
              </Text>
            )}
          </>
        )}
      </Stack>
    </Card>
  );
}
