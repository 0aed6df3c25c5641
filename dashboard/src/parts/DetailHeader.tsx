/**
 * The top of a payment's or subscription's page: the way back to its list,
 * then its headline and its status, with the actions on it beside them (where
 * the eye is, above the fold on a laptop and first on a phone; they wrap below
 * the headline on a narrow screen).
 */
import { Anchor, Breadcrumbs, Group, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { StatusBadge } from '../ui/StatusBadge';

export function DetailHeader({ list, listTo, id, title, status, actions }: { list: string; listTo: string; id: string; title: ReactNode; status: string; actions?: ReactNode }) {
  return (
    <>
      <Breadcrumbs>
        <Anchor component={Link} to={listTo}>
          {list}
        </Anchor>
        <span>{id}</span>
      </Breadcrumbs>
      <Group justify="space-between" align="flex-start" gap="sm">
        <Group gap="sm">
          <Title order={1} size="h2">
            {title}
          </Title>
          <StatusBadge status={status} />
        </Group>
        {actions}
      </Group>
    </>
  );
}
