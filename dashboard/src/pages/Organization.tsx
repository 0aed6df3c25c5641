/**
 * The organization of the current project: its members and their roles
 * (owners invite, change roles, remove), its billing state and this month's
 * usage against its quota.
 */
import { Badge, Button, Card, Group, Modal, Progress, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useState } from 'react';
import { MEMBER_ROLES } from '../../../server/contract/people';
import { InviteMemberInput } from '../../../server/contract/operator/people';
import { api } from '../api/client';
import { SESSION_KEY, useCan, useSession } from '../api/session';
import { resolveScope, useScope, useTenancy } from '../shell/scope';
import { useAction } from '../ui/action';
import { Bidi } from '../ui/Bidi';
import { askConfirmation, ConfirmButton } from '../ui/ConfirmButton';
import { CopyValue } from '../ui/Copy';
import { DataTable } from '../ui/DataTable';
import { formatDate, formatDateTime } from '../ui/format';
import { FormModal } from '../ui/FormModal';
import { Loaded } from '../ui/Loaded';
import { Failed, Loading } from '../ui/states';
import { StatusBadge } from '../ui/StatusBadge';
import { zodValidate } from '../ui/zod-form';
import { invitedMessage } from '../parts/invitation-answer';

type Role = (typeof MEMBER_ROLES)[number];
const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, including members',
  developer: 'keys, endpoints, routing, gateways, resends, simulators',
  viewer: 'reads only',
};

function Usage({ organizationId }: { organizationId: string }) {
  const usage = useQuery({ queryKey: ['organizations', 'usage', organizationId], queryFn: () => api.organizations.usage.query({ organizationId }) });
  if (usage.error) return <Failed error={usage.error} />;
  if (!usage.data) return <Loading />;
  const { used, limit, period } = usage.data;
  const share = limit ? Math.min(100, (used / limit) * 100) : 0;
  return (
    <Stack gap={6}>
      <Text size="sm">
        {used} transaction{used === 1 ? '' : 's'} this month{limit != null ? ` of ${limit} allowed` : ' (no quota)'}
      </Text>
      {limit != null && <Progress value={share} color={share >= 90 ? 'red' : share >= 70 ? 'orange' : 'teal'} aria-label="Monthly usage against quota" />}
      <Text size="xs" c="dimmed">
        Period: {typeof period === 'string' ? period : `${formatDate((period as { start?: string }).start)} – ${formatDate((period as { end?: string }).end)}`}
      </Text>
    </Stack>
  );
}

/** Whether members must log in with a second factor; owners change it, after a confirmation naming the effect. */
function SecondFactorRequirement({ organizationId, name, isOwner }: { organizationId: string; name: string; isOwner: boolean }) {
  const session = useSession();
  const queryClient = useQueryClient();
  const required = session.secondFactor.requiredBy.includes(organizationId);
  const change = useAction((value: boolean) => api.auth.setOrganizationSecondFactor.mutate({ organizationId, required: value }), {
    success: (_, value) => (value ? 'A second factor is now required.' : 'A second factor is no longer required.'),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: SESSION_KEY }),
  });
  const ask = (value: boolean) =>
    askConfirmation(
      value
        ? {
            title: `Require a second factor in ${name}?`,
            message: 'Members without a second factor (and sessions opened without one) are refused this organization’s data until they set one up and log in with it.',
            confirmLabel: 'Require it',
          }
        : { title: `Stop requiring a second factor in ${name}?`, message: 'Members can then see this organization’s data after logging in with their password alone.', confirmLabel: 'Stop requiring it', danger: true },
      () => change.mutate(value),
    );
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Log-in security
      </Title>
      {isOwner ? (
        <Switch label="Require a second factor (authenticator app) of every member" checked={required} disabled={change.isPending} onChange={(e) => ask(e.currentTarget.checked)} />
      ) : (
        <Text size="sm">{required ? 'Members must log in with a second factor.' : 'A second factor is not required (owners can require it).'}</Text>
      )}
      <Text size="xs" c="dimmed" mt="xs">
        {session.secondFactor.enabled ? 'You have a second factor.' : 'You have no second factor yet: an owner needs one before requiring it.'}{' '}
        <Link to="/account/security">Your security settings</Link>
      </Text>
    </Card>
  );
}

export default function OrganizationPage() {
  const scope = useScope();
  const session = useSession();
  const organization = resolveScope(useTenancy(), scope.environmentId).organization;
  const organizationId = scope.organizationId;
  const isOwner = useCan(organizationId, 'own');
  const members = useQuery({ queryKey: ['members', 'list', organizationId], queryFn: () => api.members.list.query({ organizationId }) });
  const [inviting, setInviting] = useState(false);
  const [link, setLink] = useState<string | null>(null);
  const toInvite = (values: { email: string; role: string }) => ({ organizationId, email: values.email.trim(), role: values.role as Role });
  const form = useForm({ initialValues: { email: '', role: 'developer' }, validate: zodValidate(InviteMemberInput, toInvite) });
  const invite = useAction((values: { email: string; role: string }) => api.members.invite.mutate(toInvite(values)), {
    success: invitedMessage,
    invalidate: [['members']],
    onSuccess: (answer) => {
      setInviting(false);
      form.reset();
      if (answer.invitationUrl) setLink(answer.invitationUrl);
    },
  });
  const setRole = useAction((input: { userId: string; role: Role }) => api.members.setRole.mutate({ organizationId, ...input }), { success: 'Role changed.', invalidate: [['members']] });
  const remove = useAction((userId: string) => api.members.remove.mutate({ organizationId, userId }), { success: 'Member removed.', invalidate: [['members']] });
  const revokeInvitation = useAction((invitationId: string) => api.members.revokeInvitation.mutate({ organizationId, invitationId }), {
    success: 'Invitation revoked.',
    invalidate: [['members']],
  });

  return (
    <Stack>
      <Title order={1} size="h2">
        <Bidi>{organization?.name ?? 'Organization'}</Bidi>
      </Title>
      <Group grow align="stretch" wrap="wrap">
        <Card withBorder miw={260}>
          <Title order={2} size="h4" mb="xs">
            Billing
          </Title>
          {organization && (
            <Group gap="xs">
              <StatusBadge status={organization.billingStatus} />
              <Text size="sm">Monthly quota: {organization.monthlyTxLimit ?? 'none'}</Text>
            </Group>
          )}
          <Text size="xs" c="dimmed" mt="xs">
            Billing state and quota are set by the platform operator.
          </Text>
        </Card>
        <Card withBorder miw={260}>
          <Title order={2} size="h4" mb="xs">
            Usage
          </Title>
          <Usage organizationId={organizationId} />
        </Card>
      </Group>
      <SecondFactorRequirement organizationId={organizationId} name={organization?.name ?? 'this organization'} isOwner={isOwner} />
      <Card withBorder p={0}>
        <Group justify="space-between" p="md" pb={0}>
          <Title order={2} size="h4">
            Members
          </Title>
          {isOwner && <Button onClick={() => setInviting(true)}>Invite</Button>}
        </Group>
        <Loaded error={members.error} data={members.data}>
          {(data) => (
            <DataTable bare label="Members" minWidth={560} verticalSpacing="sm" columns={['E-mail', 'Role', 'Since', isOwner && 'Actions']}>
              {data.members.map((member) => (
                <Table.Tr key={member.userId}>
                  <Table.Td>
                    <Bidi>{member.email}</Bidi> {member.userId === session.user.id && <Badge size="xs">you</Badge>}
                  </Table.Td>
                  <Table.Td>
                    {isOwner ? (
                      <Select
                        aria-label={`Role of ${member.email}`}
                        data={MEMBER_ROLES.map((role) => ({ value: role, label: role }))}
                        value={member.role}
                        allowDeselect={false}
                        disabled={setRole.isPending}
                        onChange={(role) => role && role !== member.role && setRole.mutate({ userId: member.userId, role: role as Role })}
                        w={140}
                      />
                    ) : (
                      <Text size="sm" title={ROLE_HELP[member.role as Role]}>
                        {member.role}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{formatDate(member.joinedAt)}</Table.Td>
                  {isOwner && (
                    <Table.Td>
                      <ConfirmButton
                        size="xs"
                        color="red"
                        variant="light"
                        loading={remove.isPending && remove.variables === member.userId}
                        confirm={{ title: `Remove ${member.email}?`, message: 'They lose access to this organization at once.', confirmLabel: 'Remove', danger: true }}
                        onConfirm={() => remove.mutate(member.userId)}
                      >
                        Remove
                      </ConfirmButton>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
              {data.invitations.map((invitation) => (
                <Table.Tr key={invitation.id}>
                  <Table.Td>
                    <Bidi>{invitation.email}</Bidi>{' '}
                    <Badge size="xs" color="yellow" variant="light">
                      invited
                    </Badge>
                  </Table.Td>
                  <Table.Td>{invitation.role}</Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      expires {formatDateTime(invitation.expiresAt)}
                    </Text>
                  </Table.Td>
                  {isOwner && (
                    <Table.Td>
                      <Button size="xs" variant="default" loading={revokeInvitation.isPending && revokeInvitation.variables === invitation.id} onClick={() => revokeInvitation.mutate(invitation.id)}>
                        Revoke
                      </Button>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </DataTable>
          )}
        </Loaded>
      </Card>
      <FormModal opened={inviting} onClose={() => setInviting(false)} title="Invite a member" onSubmit={form.onSubmit((values) => invite.mutate(values))} submitLabel="Invite" pending={invite.isPending}>
        <TextInput label="E-mail" type="email" required data-autofocus {...form.getInputProps('email')} />
        <Select
          label="Role"
          allowDeselect={false}
          data={MEMBER_ROLES.map((role) => ({ value: role, label: `${role} — ${ROLE_HELP[role]}` }))}
          {...form.getInputProps('role')}
        />
      </FormModal>
      <Modal opened={link !== null} onClose={() => setLink(null)} title="Invitation link" size="lg">
        <Stack>
          <Text size="sm">Send this link to the person; it is shown only now. Whoever opens it picks a password and joins.</Text>
          {link && <CopyValue value={link} label="invitation link" secret />}
          <Button onClick={() => setLink(null)}>Done</Button>
        </Stack>
      </Modal>
    </Stack>
  );
}
