/** A table with a header row that scrolls sideways on narrow screens, in a bordered card unless `bare`; the rows are the children. */
import { Card, Table, Title, type TableProps } from '@mantine/core';
import type { ReactNode } from 'react';

export function DataTable({
  label,
  columns,
  minWidth,
  title,
  bare = false,
  children,
  ...tableProps
}: TableProps & {
  /** The table's accessible name. */
  label: string;
  /** Header cells; `false` leaves one out (e.g. "Actions" for who cannot act). */
  columns: (string | false)[];
  minWidth: number;
  /** A heading inside the card, above the table. */
  title?: string;
  bare?: boolean;
  children: ReactNode;
}) {
  const table = (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table {...tableProps} aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => column !== false && <Table.Th key={column}>{column}</Table.Th>)}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
  if (bare) return table;
  return (
    <Card withBorder p={0}>
      {title && (
        <Title order={2} size="h4" p="md" pb={0}>
          {title}
        </Title>
      )}
      {table}
    </Card>
  );
}
