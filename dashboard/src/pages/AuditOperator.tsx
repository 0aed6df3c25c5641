/** Platform operators: the audit log of every organization (and the platform's own user accounts), or of one. */
import { Alert, Select, Stack } from '@mantine/core';
import { useState } from 'react';
import { useSession } from '../api/session';
import { AuditLog } from '../parts/AuditLog';
import { useTenancy } from '../shell/scope';
import { PageHeader } from '../ui/PageHeader';

export default function AuditOperatorPage() {
  const session = useSession();
  const tenancy = useTenancy();
  const [organizationId, setOrganizationId] = useState<string | null>(null);
  if (!session.user.platformOperator) return <Alert color="gray">Only platform operators read every organization's audit log.</Alert>;
  return (
    <Stack>
      <PageHeader title="Audit log (operator)" />
      <Select
        label="Organization"
        placeholder="Every organization"
        clearable
        searchable
        w={360}
        value={organizationId}
        onChange={setOrganizationId}
        data={tenancy.organizations.map((o) => ({ value: o.id, label: o.name }))}
      />
      <AuditLog key={organizationId ?? 'all'} organizationId={organizationId ?? undefined} />
    </Stack>
  );
}
