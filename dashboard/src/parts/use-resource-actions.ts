/**
 * What the action cards of a payment and of a subscription share: whether
 * the person may act (developers and owners; the server checks again), where
 * a confirmation says the change lands, and what the server says beforehand
 * each action would do (`payments.actions`, `subscriptions.actions`), read
 * again whenever `state` (the resource's status and last change) changes.
 */
import { useQuery } from '@tanstack/react-query';
import { useCan } from '../api/session';
import { useConfirmTarget } from '../shell/confirm-target';

export function useResourceActions<Options>(resource: {
  organizationId: string;
  /** 'payments' or 'subscriptions': the query is kept under `[kind, 'actions', id, …state]`. */
  kind: string;
  id: string;
  state: readonly unknown[];
  read: () => Promise<Options>;
}) {
  const canAct = useCan(resource.organizationId, 'develop');
  const target = useConfirmTarget();
  const options = useQuery({ queryKey: [resource.kind, 'actions', resource.id, ...resource.state], queryFn: resource.read });
  return { canAct, target, can: options.data };
}
