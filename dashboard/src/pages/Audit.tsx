/**
 * The organization's audit log: every change to its keys, routing, gateways,
 * endpoints, members, billing and quota, who made it, from where, and the
 * record before and after. Its owners read it (and platform operators).
 */
import { Alert, Stack } from '@mantine/core';
import { useSession } from '../api/session';
import { AuditLog } from '../parts/AuditLog';
import { useScope, useTenancy } from '../shell/scope';
import { PageHeader } from '../ui/PageHeader';

export default function AuditPage() {
  const scope = useScope();
  const session = useSession();
  const organization = useTenancy().organizations.find((o) => o.id === scope.organizationId);
  const role = organization && 'role' in organization ? organization.role : null;
  const mayRead = session.user.platformOperator || role === 'owner';
  return (
    <Stack>
      <PageHeader title={`Audit log${organization ? ` of ${organization.name}` : ''}`} />
      {mayRead ? <AuditLog organizationId={scope.organizationId} /> : <Alert color="gray">Only the organization's owners read its audit log. Ask an owner.</Alert>}
    </Stack>
  );
}
