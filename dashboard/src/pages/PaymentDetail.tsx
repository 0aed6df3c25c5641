/** One payment: its state, the gateway's reference, the timeline of its events and their deliveries; the simulators in sandbox. */
import { Anchor, Card, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { FINAL_PAYMENT_STATUSES } from '../../../server/contract/enums';
import { api } from '../api/client';
import { DetailHeader } from '../parts/DetailHeader';
import { Facts } from '../parts/Facts';
import { RoutingTrace } from '../parts/RoutingTrace';
import { useSandboxAccess } from '../parts/sandbox-access';
import { Simulators, type SimulatorAction } from '../parts/Simulators';
import { EventTimeline } from '../parts/Timeline';
import { PaymentRefundButton, PaymentRefunds } from '../parts/RefundAction';
import { pendingRefunds, refundOfEvent } from '../parts/RefundsList';
import { MetadataCard } from '../parts/MetadataCard';
import { PaymentActions } from '../parts/PaymentActions';
import { PixCode } from '../parts/PixCode';
import { useScope } from '../shell/scope';
import { Bidi } from '../ui/Bidi';
import { CopyValue } from '../ui/Copy';
import { formatAmount, formatDateTime } from '../ui/format';
import { Failed, Loading } from '../ui/states';

type PaymentOutcome = 'pay' | 'decline' | 'expire';

export default function PaymentDetailPage() {
  const scope = useScope();
  const { paymentId = '' } = useParams();
  const canSimulate = useSandboxAccess();
  const detail = useQuery({
    queryKey: ['payments', 'get', paymentId],
    queryFn: () => api.payments.get.query({ paymentId }),
    // The gateway's notifications and the deliveries arrive in the background: the page follows them until the
    // payment is final, no refund waits for its gateway, and every delivery has an outcome (an action or a resend on the page fetches it again).
    refetchInterval: (query) => {
      const data = query.state.data;
      const settled =
        data &&
        FINAL_PAYMENT_STATUSES.includes(data.payment.status) &&
        pendingRefunds(data.refunds).length === 0 &&
        data.events.every((event) => event.dispatchedAt && event.deliveries.every((d) => d.status !== 'PENDING'));
      return settled ? false : 3_000;
    },
  });
  if (detail.error) return <Failed error={detail.error} />;
  if (!detail.data) return <Loading />;
  const { payment, events, refunds } = detail.data;
  const final = FINAL_PAYMENT_STATUSES.includes(payment.status);
  const actions: SimulatorAction<PaymentOutcome>[] = final
    ? []
    : [
        { outcome: 'pay', label: 'Pay', color: 'teal' },
        { outcome: 'decline', label: 'Decline', color: 'red' },
        ...(payment.method === 'pix' ? [{ outcome: 'expire' as const, label: 'Expire', color: 'gray' }] : []),
      ];
  return (
    <Stack>
      <DetailHeader
        list="Payments"
        listTo={`/e/${scope.environmentId}/payments`}
        id={payment.id}
        title={formatAmount(payment.amount, payment.currency)}
        status={payment.status}
        actions={
          <PaymentActions
            payment={payment}
            organizationId={scope.organizationId}
            refund={<PaymentRefundButton environmentId={scope.environmentId} organizationId={scope.organizationId} payment={payment} refunds={refunds} />}
          />
        }
      />
      <Card withBorder>
        <Facts
          items={[
            ['Payment id', <CopyValue value={payment.id} label="payment id" />],
            ['External id', <Bidi>{payment.externalId}</Bidi>],
            ['Method', payment.method],
            ['Gateway', payment.gateway ?? '—'],
            ['Gateway reference', payment.gatewayRef ?? '—'],
            ['Gateway status', payment.gatewayStatus ?? '—'],
            ['Customer', payment.customer?.name || payment.customer?.email ? <><Bidi>{payment.customer.name}</Bidi>{payment.customer.name && payment.customer.email ? ' · ' : ''}<Bidi>{payment.customer.email}</Bidi></> : '—'],
            ['Card', payment.card ? `${payment.card.brand} •••• ${payment.card.last4}` : '—'],
            // What the customer pays with while the payment is open: the Pix copy-and-paste code, or the hosted checkout.
            ...(!final && payment.checkoutUrl
              ? ([['Checkout', <Anchor href={payment.checkoutUrl} target="_blank" rel="noreferrer">hosted checkout page</Anchor>]] as [string, ReactNode][])
              : []),
            ['Installments', payment.installments ?? '—'],
            ['Subscription', payment.subscriptionId ? <Anchor component={Link} to={`/e/${scope.environmentId}/subscriptions/${payment.subscriptionId}`}>{payment.subscriptionId}</Anchor> : '—'],
            ['Created', formatDateTime(payment.createdAt)],
            ['Updated', formatDateTime(payment.updatedAt)],
          ]}
        />
      </Card>
      {!final && payment.pix && <PixCode pix={payment.pix} expiresAt={payment.expiresAt} />}
      {canSimulate && <Simulators gateway={payment.gateway} actions={actions} run={(outcome) => api.simulators.payment.mutate({ paymentId: payment.id, outcome })} invalidate={[['payments'], ['overview']]} />}
      <MetadataCard metadata={payment.metadata} />
      <PaymentRefunds payment={payment} refunds={refunds} />
      <RoutingTrace trace={detail.data.routingTrace} what="payment" />
      <EventTimeline events={events} organizationId={scope.organizationId} annotate={refundOfEvent(refunds)} />
    </Stack>
  );
}
