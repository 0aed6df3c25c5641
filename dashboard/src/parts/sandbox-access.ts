/** Whether the person may use the sandbox tools here (test payments, simulators): a developer, in a sandbox environment. */
import { useCan } from '../api/session';
import { useScope } from '../shell/scope';

export function useSandboxAccess() {
  const scope = useScope();
  return useCan(scope.organizationId, 'develop') && scope.kind === 'sandbox';
}
