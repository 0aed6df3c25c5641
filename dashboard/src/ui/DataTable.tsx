/** A table with a header row that scrolls sideways on narrow screens, in a bordered card unless `bare`; the rows are the children. */
import { Card, Table, Title, type TableProps } from '@mantine/core';
import type { ReactNode } from 'react';

export function DataTable({
  label,
  columns,
  minWidth,
  title,
  bare = false,
  keyboardScroll = false,
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
  /**
   * A table with nothing to focus in it (no link, no button) that is wider than a phone: its scrolling area takes the
   * focus, so the keyboard can scroll it sideways (axe's scrollable-region-focusable).
   */
  keyboardScroll?: boolean;
  children: ReactNode;
}) {
  const table = (
    <Table.ScrollContainer minWidth={minWidth} scrollAreaProps={keyboardScroll ? { viewportProps: { tabIndex: 0, role: 'region', 'aria-label': label } } : undefined}>
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
