/**
 * Cancel (now, or at the end of the period where the gateway supports it)
 * and Sync on a subscription, for developers and owners; viewers see them
 * disabled, with why. subscriptions.actions says beforehand what the API
 * would refuse and why; the actions run the /v1 use cases.
 */
import { Button } from '@mantine/core';
import { api } from '../api/client';
import { useAction } from '../ui/action';
import { ConfirmButton } from '../ui/ConfirmButton';
import { formatDate } from '../ui/format';
import { ActionReasons } from './ActionReasons';
import { HeaderActions } from './HeaderActions';
import { useResourceActions } from './use-resource-actions';

interface SubscriptionLike {
  id: string;
  status: string;
  gateway: string;
  nextBillingAt: string | null;
  cancelAtPeriodEnd: boolean;
  updatedAt: string;
}

export function SubscriptionActions({ subscription, organizationId }: { subscription: SubscriptionLike; organizationId: string }) {
  const { canAct, target, can } = useResourceActions({
    organizationId,
    kind: 'subscriptions',
    id: subscription.id,
    state: [subscription.status, subscription.updatedAt, subscription.cancelAtPeriodEnd],
    read: () => api.subscriptions.actions.query({ subscriptionId: subscription.id }),
  });
  const invalidate = [['subscriptions'], ['payments'], ['overview']];
  const cancel = useAction((atPeriodEnd: boolean) => api.subscriptions.cancel.mutate({ subscriptionId: subscription.id, atPeriodEnd }), {
    success: (answer, atPeriodEnd) => (atPeriodEnd ? `Subscription ${answer.id} ends at the end of its period.` : `Subscription ${answer.id} canceled.`),
    invalidate,
  });
  const sync = useAction(() => api.subscriptions.sync.mutate({ subscriptionId: subscription.id }), {
    success: (answer) => `Read from ${subscription.gateway}: the subscription is ${answer.status}.`,
    invalidate,
  });
  const busy = cancel.isPending || sync.isPending;
  const periodEnd = subscription.nextBillingAt ? formatDate(subscription.nextBillingAt) : 'the end of the current period';
  return (
    <HeaderActions
      reasons={
        <ActionReasons
          canAct={canAct}
          reasons={[
            ['Cancel at period end', can?.cancelAtPeriodEnd.reason],
            ['Cancel now', can?.cancelNow.reason],
            ['Sync', can?.sync.reason],
          ]}
        />
      }
    >
      <ConfirmButton
        color="orange"
        variant="light"
        disabled={!canAct || !can?.cancelAtPeriodEnd.allowed || busy}
        loading={cancel.isPending && cancel.variables === true}
        confirm={{
          title: `Cancel ${subscription.id} at the end of its period?`,
          message: `The customer keeps what they paid for until ${periodEnd}; no charge is made after that, and subscription.canceled is sent when it ends.`,
          confirmLabel: 'Cancel at period end',
          cancelLabel: 'Keep it',
          target,
        }}
        onConfirm={() => cancel.mutate(true)}
      >
        Cancel at period end
      </ConfirmButton>
      <ConfirmButton
        color="red"
        variant="light"
        disabled={!canAct || !can?.cancelNow.allowed || busy}
        loading={cancel.isPending && cancel.variables === false}
        confirm={{
          title: `Cancel ${subscription.id} now?`,
          message: `It ends at once at ${subscription.gateway}: no further charge, and subscription.canceled is sent to your webhook endpoints. This cannot be undone.`,
          confirmLabel: 'Cancel now',
          cancelLabel: 'Keep it',
          danger: true,
          target,
        }}
        onConfirm={() => cancel.mutate(false)}
      >
        Cancel now
      </ConfirmButton>
      <Button variant="default" disabled={!canAct || !can?.sync.allowed || busy} loading={sync.isPending} onClick={() => sync.mutate(undefined)}>
        Sync from {subscription.gateway}
      </Button>
    </HeaderActions>
  );
}
