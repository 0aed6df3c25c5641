/** After login: the first sandbox the person can see (the demo's), or a word on what to do when there is none. */
import { Navigate } from 'react-router';
import { Alert } from '@mantine/core';
import { useSession } from '../api/session';
import { useTenancy } from '../shell/scope';

export function StartPage() {
  const tenancy = useTenancy();
  const session = useSession();
  const first = tenancy.environments.find((e) => e.kind === 'sandbox') ?? tenancy.environments[0];
  if (first) return <Navigate to={`/e/${first.id}`} replace />;
  return (
    <Alert title="Nothing here yet" color="gray">
      {session.user.platformOperator
        ? 'There is no project yet. Create an organization on the Organizations page, then a project with the operator CLI.'
        : 'You are not a member of any organization with a project yet. Ask an owner to invite you.'}
    </Alert>
  );
}
