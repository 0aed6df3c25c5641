/** A label/value list (the state of a payment or subscription). */
import { SimpleGrid, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md" verticalSpacing="sm" component="dl" m={0}>
      {items.map(([label, value]) => (
        <Stack gap={0} key={label}>
          <Text component="dt" size="xs" c="dimmed" tt="uppercase" fw={600}>
            {label}
          </Text>
          <Text component="dd" m={0} size="sm" style={{ wordBreak: 'break-all' }}>
            {value ?? '—'}
          </Text>
        </Stack>
      ))}
    </SimpleGrid>
  );
}
