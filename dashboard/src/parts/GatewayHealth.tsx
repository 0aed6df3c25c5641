/**
 * Each gateway's health in an environment, as routing sees it: its circuit
 * (closed: taking requests; open: passed over until the cool-down ends;
 * half-open: the next request is a probe), its recent successes, failures
 * and timeouts, and its latency. Read again every few seconds: an outage is
 * followed on the page as it happens.
 */
import { Badge, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { DataTable } from '../ui/DataTable';
import { formatDateTime, formatRelative } from '../ui/format';
import { Failed, Loading } from '../ui/states';

export const HEALTH_REFRESH_MS = 5_000;

const STATE: Record<string, { label: string; color: string; meaning: string }> = {
  closed: { label: 'closed', color: 'green', meaning: 'Healthy: new requests go to it.' },
  open: { label: 'open', color: 'red', meaning: 'Failing: passed over until the cool-down ends, then probed.' },
  half_open: { label: 'half-open', color: 'yellow', meaning: 'Cool-down over: the next request is a probe that closes or opens the circuit again.' },
};

const ms = (value: number | null | undefined) => (value == null ? '—' : `${Math.round(value)} ms`);

export function GatewayHealth({ environmentId }: { environmentId: string }) {
  const health = useQuery({
    queryKey: ['routing', 'health', environmentId],
    queryFn: () => api.routing.health.query({ environmentId }),
    refetchInterval: HEALTH_REFRESH_MS,
  });
  if (health.error) return <Failed error={health.error} />;
  if (!health.data) return <Loading />;
  // Read here so each refresh renders again, and the relative times move on.
  const readAt = new Date(health.dataUpdatedAt).toISOString();
  return (
    <>
    <DataTable title="Gateway health" label="Gateway health" minWidth={760} columns={['Gateway', 'Circuit', 'Successes', 'Failures', 'Timeouts', 'p50', 'p95', 'Open until', 'Last failure']}>
      {health.data.map((gateway) => {
        const state = STATE[gateway.state] ?? { label: gateway.state, color: 'gray', meaning: '' };
        return (
          <Table.Tr key={gateway.gateway}>
            <Table.Td>
              <Text size="sm" ff="monospace">
                {gateway.gateway}
              </Text>
            </Table.Td>
            <Table.Td style={{ whiteSpace: 'nowrap' }}>
              <Badge color={state.color} variant="light" title={state.meaning} style={{ overflow: 'visible' }}>
                {state.label}
              </Badge>
            </Table.Td>
            <Table.Td>{gateway.successes}</Table.Td>
            <Table.Td c={gateway.failures > 0 ? 'red.8' : undefined}>{gateway.failures}</Table.Td>
            <Table.Td c={gateway.timeouts > 0 ? 'orange.9' : undefined}>{gateway.timeouts}</Table.Td>
            <Table.Td>{ms(gateway.p50Ms)}</Table.Td>
            <Table.Td>{ms(gateway.p95Ms)}</Table.Td>
            <Table.Td>
              {gateway.openUntil ? (
                <span title={formatDateTime(gateway.openUntil)}>{gateway.state === 'open' ? formatRelative(gateway.openUntil) : `ended ${formatRelative(gateway.openUntil)}`}</span>
              ) : (
                '—'
              )}
            </Table.Td>
            <Table.Td>{gateway.lastFailureAt ? <span title={formatDateTime(gateway.lastFailureAt)}>{formatRelative(gateway.lastFailureAt)}</span> : '—'}</Table.Td>
          </Table.Tr>
        );
      })}
      {health.data.length === 0 && (
        <Table.Tr>
          <Table.Td colSpan={9}>
            <Text size="sm" c="dimmed">
              No request has reached a gateway here recently.
            </Text>
          </Table.Td>
        </Table.Tr>
      )}
    </DataTable>
    <Text size="xs" c="dimmed" mt={-8}>
      Creates sent from this service to each gateway recently. Circuit closed: new requests go to it; open: passed over until the cool-down ends; half-open: the next
      request is a probe. Read {formatDateTime(readAt)}; refreshed every {HEALTH_REFRESH_MS / 1000} s.
    </Text>
    </>
  );
}
