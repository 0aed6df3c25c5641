/**
 * The frame of every page after login: a header with the project switcher,
 * the sandbox/production toggle and the account menu; the navigation; and a
 * test-mode banner across sandbox pages. Pages render inside <main>.
 */
import { AppShell, Alert, Avatar, Burger, Group, Menu, NavLink, Button, SegmentedControl, Select, Text, VisuallyHidden, Badge } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense } from 'react';
import { Link, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { api } from '../api/client';
import { useSession, useSwitchSession } from '../api/session';
import { SandboxBannerText } from '../parts/SandboxBannerText';
import { useAction } from '../ui/action';
import { NotAvailable } from '../ui/NotAvailable';
import { MAIN_ID, SkipLink, useFocusMainOnNavigation } from '../ui/SkipLink';
import { Failed, Loading } from '../ui/states';
import { SANDBOX_COLOR } from '../ui/theme';
import { resolveScope, useTenancy } from './scope';

const SECTIONS = [
  { path: '', label: 'Home' },
  { path: 'payments', label: 'Payments' },
  { path: 'subscriptions', label: 'Subscriptions' },
  { path: 'webhooks', label: 'Webhook endpoints' },
  { path: 'deliveries', label: 'Deliveries' },
  { path: 'keys', label: 'API keys' },
  { path: 'gateways', label: 'Gateways & routing' },
  { path: 'organization', label: 'Organization' },
  { path: 'audit', label: 'Audit log' },
];

function AccountMenu() {
  const session = useSession();
  const switchSession = useSwitchSession();
  const navigate = useNavigate();
  const logout = useAction(() => api.auth.logout.mutate(), {
    onSuccess: () => {
      switchSession(null);
      navigate('/');
    },
  });
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="subtle" color="gray" px="xs" aria-label={`Account: ${session.user.email}`}>
          {/* Mantine's person icon, not the e-mail's initials: visible text missing from the button's name ("Account: …") fails label-content-name-mismatch. */}
          <Avatar size="sm" color="indigo" radius="xl" hiddenFrom="md" aria-hidden="true" />
          <Text size="sm" truncate maw={200} visibleFrom="md">
            {session.user.email}
          </Text>
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {session.user.platformOperator && (
          <Menu.Item component={Link} to="/operator/organizations">
            Organizations (operator)
          </Menu.Item>
        )}
        <Menu.Item component={Link} to="/account/sessions">
          Your sessions
        </Menu.Item>
        <Menu.Item component={Link} to="/account/security">
          Security (second factor)
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item color="red" onClick={() => logout.mutate(undefined)} disabled={logout.isPending}>
          {logout.isPending ? 'Logging out…' : 'Log out'}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** The section of the current page, kept when switching environment. */
function sectionOf(pathname: string): string {
  const [, , , part] = pathname.split('/');
  // An event's page belongs with the deliveries (the other environment has no such event).
  const section = part === 'events' ? 'deliveries' : part;
  return section && SECTIONS.some((s) => s.path === section) ? section : '';
}

export function AppLayout() {
  const [opened, { toggle, close }] = useDisclosure();
  const { environmentId } = useParams();
  const tenancy = useTenancy();
  const navigate = useNavigate();
  const location = useLocation();
  const session = useSession();
  useFocusMainOnNavigation();

  if (tenancy.error) return <Failed error={tenancy.error} />;
  if (tenancy.isPending) return <Loading />;
  const scope = resolveScope(tenancy, environmentId);
  if (environmentId && !scope.environment) return <NotAvailable />;

  const section = sectionOf(location.pathname);
  const go = (envId: string | null) => {
    if (!envId) return;
    navigate(`/e/${envId}/${section}`);
    close();
  };
  const projectOptions = tenancy.projects
    .map((project) => {
      const organization = tenancy.organizations.find((o) => o.id === project.organizationId);
      const environments = tenancy.environments.filter((e) => e.projectId === project.id);
      const preferred = environments.find((e) => e.kind === scope.environment?.kind) ?? environments[0];
      return preferred ? { value: preferred.id, label: `${organization?.name ?? project.organizationId} / ${project.name}`, projectId: project.id } : null;
    })
    .filter((option) => option !== null);
  const currentProjectOption = projectOptions.find((option) => option.projectId === scope.project?.id);
  const sandbox = scope.environment?.kind === 'sandbox';
  // On a laptop the project switcher sits in the header; on a phone, at the top of the menu.
  const projectSelect = (place: 'header' | 'navbar') => (
    <Select
      aria-label="Project"
      data={projectOptions.map(({ value, label }) => ({ value, label }))}
      value={currentProjectOption?.value ?? null}
      onChange={go}
      allowDeselect={false}
      searchable={projectOptions.length > 8}
      w={place === 'header' ? 260 : '100%'}
      mb={place === 'navbar' ? 'sm' : undefined}
      size="sm"
      {...(place === 'header' ? { visibleFrom: 'sm' } : { hiddenFrom: 'sm' })}
    />
  );

  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <SkipLink />
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="xs">
          <Group gap="xs" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Text fw={700} component={Link} to="/" visibleFrom="xs">
              Payments
            </Text>
            {scope.environment && (
              <>
                {projectSelect('header')}
                <SegmentedControl
                  aria-label="Environment"
                  size="sm"
                  value={scope.environment.id}
                  onChange={go}
                  color={sandbox ? SANDBOX_COLOR : 'blue.9'}
                  data={scope.siblings.map((e) => ({ value: e.id, label: e.kind === 'sandbox' ? 'Sandbox' : 'Production' }))}
                />
              </>
            )}
          </Group>
          <AccountMenu />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Sections">
        {scope.environment && projectSelect('navbar')}
        {scope.environment ? (
          SECTIONS.map((s) => {
            const to = `/e/${scope.environment!.id}${s.path ? `/${s.path}` : ''}`;
            return <NavLink key={s.path} component={Link} to={to} label={s.label} active={section === s.path} onClick={close} />;
          })
        ) : (
          <NavLink component={Link} to="/" label="Home" onClick={close} />
        )}
        {session.user.platformOperator && <NavLink component={Link} to="/operator/organizations" label="Organizations (operator)" onClick={close} />}
        {session.user.platformOperator && <NavLink component={Link} to="/operator/audit" label="Audit log (operator)" onClick={close} />}
        <NavLink component={Link} to="/account/sessions" label="Your sessions" onClick={close} />
        <NavLink component={Link} to="/account/security" label="Security" onClick={close} />
      </AppShell.Navbar>
      <AppShell.Main id={MAIN_ID} tabIndex={-1} style={{ outline: 'none' }}>
        {sandbox && (
          <Alert color={SANDBOX_COLOR} variant="filled" radius="sm" py={6} mb="md" role="note" data-testid="sandbox-banner">
            <Group gap="xs">
              <Badge color="white" c={SANDBOX_COLOR} variant="filled">
                Sandbox
              </Badge>
              <SandboxBannerText environmentId={scope.environment!.id} />
            </Group>
          </Alert>
        )}
        <VisuallyHidden aria-live="polite">{scope.environment ? `${currentProjectOption?.label ?? ''}, ${scope.environment.kind}` : ''}</VisuallyHidden>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
