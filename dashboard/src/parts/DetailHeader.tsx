/** The top of a payment's or subscription's page: the way back to its list, then its headline and its status. */
import { Anchor, Breadcrumbs, Group, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { StatusBadge } from '../ui/StatusBadge';

export function DetailHeader({ list, listTo, id, title, status }: { list: string; listTo: string; id: string; title: ReactNode; status: string }) {
  return (
    <>
      <Breadcrumbs>
        <Anchor component={Link} to={listTo}>
          {list}
        </Anchor>
        <span>{id}</span>
      </Breadcrumbs>
      <Group gap="sm">
        <Title order={1} size="h2">
          {title}
        </Title>
        <StatusBadge status={status} />
      </Group>
    </>
  );
}
