/** An audit entry's before and after, field by field; changed fields are marked in words and colour. */
import { Badge, Table, Text } from '@mantine/core';
import { Bidi } from '../ui/Bidi';
import { diffRows } from './audit-diff';

export function AuditDiff({ before, after, label }: { before: unknown; after: unknown; label: string }) {
  const rows = diffRows(before, after);
  if (rows.length === 0) return <Text size="sm">Nothing recorded before or after.</Text>;
  const changed = rows.filter((row) => row.changed).length;
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table aria-label={label} withTableBorder withColumnBorders fz="sm">
        <Table.Caption>
          {changed} of {rows.length} fields changed{before == null ? ' (created)' : after == null ? ' (removed)' : ''}. Secrets are never recorded: they show as set or changed.
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Field</Table.Th>
            <Table.Th>Before</Table.Th>
            <Table.Th>After</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.path} bg={row.changed ? 'var(--mantine-color-yellow-light)' : undefined} data-changed={row.changed || undefined}>
              <Table.Th scope="row" fw={row.changed ? 700 : 400}>
                {row.path}{' '}
                {row.changed && (
                  <Badge size="xs" color="dark" variant="outline">
                    changed
                  </Badge>
                )}
              </Table.Th>
              <Table.Td style={{ wordBreak: 'break-word' }}>
                <Bidi>{row.before}</Bidi>
              </Table.Td>
              <Table.Td style={{ wordBreak: 'break-word' }}>
                <Bidi>{row.after}</Bidi>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
