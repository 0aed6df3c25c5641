/**
 * Platform operators: every organization, created here, with its billing
 * state and monthly quota; and what a new merchant needs before anyone of
 * theirs can log in: a project (with its sandbox and production
 * environments) and an invitation for its first owner; and, across every
 * environment, what reconciliation has left to read and what gateways lost.
 */
import { Alert, Button, Group, NumberInput, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { useState } from 'react';
import { BILLING_STATUSES } from '../../../server/contract/enums';
import { InviteMemberInput } from '../../../server/contract/operator/people';
import { CreateOrganizationInput, CreateProjectInput, SetBillingInput } from '../../../server/contract/operator/tenancy';
import { api, type Outputs } from '../api/client';
import { useSession } from '../api/session';
import { SecretOnce } from '../parts/SecretOnce';
import { invitedMessage } from '../parts/invitation-answer';
import { Outbox } from '../parts/Outbox';
import { ReconciliationCard } from '../parts/ReconciliationCard';
import { useTenancy } from '../shell/scope';
import { useAction } from '../ui/action';
import { DataTable } from '../ui/DataTable';
import { formatDate } from '../ui/format';
import { FormModal } from '../ui/FormModal';
import { PageHeader } from '../ui/PageHeader';
import { Failed, Loading } from '../ui/states';
import { StatusBadge } from '../ui/StatusBadge';
import { zodValidate } from '../ui/zod-form';

type Organization = Outputs['organizations']['list'][number];
type Billing = (typeof BILLING_STATUSES)[number];
interface Values {
  name: string;
  billingStatus: string;
  monthlyTxLimit: number | string;
}

const limitOf = (value: number | string) => (value === '' ? null : Number(value));

/** The billing state and quota inputs, alike when creating an organization and when changing its billing. */
function BillingFields({ form }: { form: UseFormReturnType<Values> }) {
  return (
    <>
      <Select label="Billing state" data={[...BILLING_STATUSES]} allowDeselect={false} {...form.getInputProps('billingStatus')} />
      <NumberInput label="Monthly transaction quota" description="Empty: no quota." min={0} allowDecimal={false} {...form.getInputProps('monthlyTxLimit')} />
    </>
  );
}

function BillingModal({ organization, onClose }: { organization: Organization; onClose: () => void }) {
  const toInput = (values: Values) => ({ organizationId: organization.id, billingStatus: values.billingStatus as Billing, monthlyTxLimit: limitOf(values.monthlyTxLimit) });
  const form = useForm<Values>({
    initialValues: { name: organization.name, billingStatus: organization.billingStatus, monthlyTxLimit: organization.monthlyTxLimit ?? '' },
    validate: zodValidate(SetBillingInput, toInput),
  });
  const save = useAction((values: Values) => api.organizations.setBilling.mutate(toInput(values)), { success: 'Billing saved.', invalidate: [['organizations']], onSuccess: onClose });
  return (
    <FormModal opened onClose={onClose} title={`Billing of ${organization.name}`} onSubmit={form.onSubmit((values) => save.mutate(values))} submitLabel="Save" pending={save.isPending}>
      <BillingFields form={form} />
    </FormModal>
  );
}

/** A project with both of its environments, so the organization's people have a sandbox to start in. */
function ProjectModal({ organization, onClose }: { organization: Organization; onClose: () => void }) {
  const toInput = (values: { name: string }) => ({ organizationId: organization.id, name: values.name.trim(), withEnvironments: true });
  const form = useForm({ initialValues: { name: '' }, validate: zodValidate(CreateProjectInput, toInput) });
  const create = useAction((values: { name: string }) => api.projects.create.mutate(toInput(values)), {
    success: (answer) => `${answer.name} created, with its sandbox and production environments.`,
    invalidate: [['projects'], ['environments']],
    onSuccess: onClose,
  });
  return (
    <FormModal opened onClose={onClose} title={`New project of ${organization.name}`} onSubmit={form.onSubmit((values) => create.mutate(values))} submitLabel="Create project" pending={create.isPending}>
      <TextInput label="Project name" required data-autofocus {...form.getInputProps('name')} />
    </FormModal>
  );
}

/** The organization's first owner (or another one): an invitation mailed to the address, accepted by its owner. */
function OwnerModal({ organization, onClose, onLink }: { organization: Organization; onClose: () => void; onLink: (link: string) => void }) {
  const toInput = (values: { email: string }) => ({ organizationId: organization.id, email: values.email.trim(), role: 'owner' as const });
  const form = useForm({ initialValues: { email: '' }, validate: zodValidate(InviteMemberInput, toInput) });
  const invite = useAction((values: { email: string }) => api.members.invite.mutate(toInput(values)), {
    success: invitedMessage,
    invalidate: [['members']],
    onSuccess: (answer) => {
      onClose();
      if (answer.invitationUrl) onLink(answer.invitationUrl);
    },
  });
  return (
    <FormModal opened onClose={onClose} title={`Invite an owner of ${organization.name}`} onSubmit={form.onSubmit((values) => invite.mutate(values))} submitLabel="Invite owner" pending={invite.isPending}>
      <TextInput label="E-mail" type="email" required data-autofocus {...form.getInputProps('email')} />
    </FormModal>
  );
}

export default function OperatorOrganizationsPage() {
  const session = useSession();
  const tenancy = useTenancy();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Organization | null>(null);
  const [addingProject, setAddingProject] = useState<Organization | null>(null);
  const [invitingOwner, setInvitingOwner] = useState<Organization | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const toCreate = (values: Values) => ({ name: values.name.trim(), billingStatus: values.billingStatus as Billing, monthlyTxLimit: limitOf(values.monthlyTxLimit) });
  const form = useForm<Values>({ initialValues: { name: '', billingStatus: 'active', monthlyTxLimit: '' }, validate: zodValidate(CreateOrganizationInput, toCreate) });
  const create = useAction((values: Values) => api.organizations.create.mutate(toCreate(values)), {
    success: (answer) => `${answer.name} created.`,
    invalidate: [['organizations']],
    onSuccess: () => {
      setCreating(false);
      form.reset();
    },
  });
  if (!session.user.platformOperator) return <Alert color="gray">Only platform operators manage organizations.</Alert>;
  if (tenancy.error) return <Failed error={tenancy.error} />;
  if (tenancy.isPending) return <Loading />;
  return (
    <Stack>
      <PageHeader title="Organizations">
        <Button onClick={() => setCreating(true)}>Create organization</Button>
      </PageHeader>
      <DataTable label="Organizations" minWidth={560} verticalSpacing="sm" columns={['Name', 'Billing', 'Quota', 'Projects', 'Created', 'Actions']}>
        {tenancy.organizations.map((organization) => (
          <Table.Tr key={organization.id}>
            <Table.Td>{organization.name}</Table.Td>
            <Table.Td>
              <StatusBadge status={organization.billingStatus} />
            </Table.Td>
            <Table.Td>{organization.monthlyTxLimit ?? 'none'}</Table.Td>
            <Table.Td>{tenancy.projects.filter((p) => p.organizationId === organization.id).length}</Table.Td>
            <Table.Td>{formatDate(organization.createdAt)}</Table.Td>
            <Table.Td>
              <Group gap="xs" wrap="nowrap">
                <Button size="xs" variant="default" onClick={() => setEditing(organization)} aria-label={`Billing of ${organization.name}`}>
                  Billing
                </Button>
                <Button size="xs" variant="default" onClick={() => setAddingProject(organization)} aria-label={`New project of ${organization.name}`}>
                  New project
                </Button>
                <Button size="xs" variant="default" onClick={() => setInvitingOwner(organization)} aria-label={`Invite an owner of ${organization.name}`}>
                  Invite an owner
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ReconciliationCard />
      <FormModal opened={creating} onClose={() => setCreating(false)} title="Create an organization" onSubmit={form.onSubmit((values) => create.mutate(values))} submitLabel="Create" pending={create.isPending}>
        <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
        <BillingFields form={form} />
      </FormModal>
      {editing && <BillingModal key={editing.id} organization={editing} onClose={() => setEditing(null)} />}
      {addingProject && <ProjectModal key={addingProject.id} organization={addingProject} onClose={() => setAddingProject(null)} />}
      {invitingOwner && <OwnerModal key={invitingOwner.id} organization={invitingOwner} onClose={() => setInvitingOwner(null)} onLink={setLink} />}
      <SecretOnce secret={link} title="Invitation link" label="invitation link" onClose={() => setLink(null)}>
        <Text size="sm">Shown because mail goes to the local outbox (no SMTP_URL). Valid for 7 days, once.</Text>
      </SecretOnce>
      <Outbox />
    </Stack>
  );
}
