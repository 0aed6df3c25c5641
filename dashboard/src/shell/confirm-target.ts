/** Where a change made on the current page lands, for confirmations to name (ui/ConfirmButton.tsx). */
import { useParams } from 'react-router';
import type { ConfirmTarget } from '../ui/ConfirmButton';
import { resolveScope, useTenancy } from './scope';

export function useConfirmTarget(): ConfirmTarget | undefined {
  const { environmentId } = useParams();
  const scope = resolveScope(useTenancy(), environmentId);
  if (!scope.environment || !scope.project) return undefined;
  const organization = scope.organization?.name ?? scope.project.organizationId;
  return { kind: scope.environment.kind, name: `${organization} / ${scope.project.name}`, typeToConfirm: scope.project.name };
}
