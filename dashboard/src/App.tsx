/** The pages and who sees them: the login and invitation pages without a session, the rest inside the layout. */
import { lazy, Suspense, type ReactNode } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { SessionProvider, useSessionQuery } from './api/session';
import { AppLayout } from './shell/AppLayout';
import { Failed, Loading } from './ui/states';
import { LoginPage } from './pages/Login';
import { StartPage } from './pages/Start';

// Each page is its own chunk: the login page loads without the charts or tables.
const InvitationPage = lazy(() => import('./pages/Invitation'));
const ForgotPasswordPage = lazy(() => import('./pages/ForgotPassword'));
const ResetPasswordPage = lazy(() => import('./pages/ResetPassword'));
const HomePage = lazy(() => import('./pages/Home'));
const PaymentsPage = lazy(() => import('./pages/Payments'));
const PaymentDetailPage = lazy(() => import('./pages/PaymentDetail'));
const SubscriptionsPage = lazy(() => import('./pages/Subscriptions'));
const SubscriptionDetailPage = lazy(() => import('./pages/SubscriptionDetail'));
const EndpointsPage = lazy(() => import('./pages/Endpoints'));
const DeliveriesPage = lazy(() => import('./pages/Deliveries'));
const EventPage = lazy(() => import('./pages/Event'));
const ApiKeysPage = lazy(() => import('./pages/ApiKeys'));
const GatewaysPage = lazy(() => import('./pages/Gateways'));
const OrganizationPage = lazy(() => import('./pages/Organization'));
const SessionsPage = lazy(() => import('./pages/Sessions'));
const OperatorOrganizationsPage = lazy(() => import('./pages/OperatorOrganizations'));

/** A page of its own, outside the layout, loaded on demand. */
const standalone = (page: ReactNode) => <Suspense fallback={<Loading />}>{page}</Suspense>;

export function App() {
  const session = useSessionQuery();
  if (session.isPending) return <Loading />;
  if (session.error) return <Failed error={session.error} />;
  if (!session.data) {
    return (
      <Suspense fallback={<Loading />}>
        <Routes>
          <Route path="/invitation" element={<InvitationPage />} />
          <Route path="/forgot-password" element={<ForgotPasswordPage />} />
          <Route path="/reset-password" element={<ResetPasswordPage />} />
          <Route path="*" element={<LoginPage />} />
        </Routes>
      </Suspense>
    );
  }
  return (
    <SessionProvider session={session.data}>
      <Routes>
        {/* An existing account accepts an invitation logged in; a mailed reset link works whoever is logged in. */}
        <Route path="/invitation" element={standalone(<InvitationPage />)} />
        <Route path="/reset-password" element={standalone(<ResetPasswordPage />)} />
        <Route element={<AppLayout />}>
          <Route index element={<StartPage />} />
          <Route path="e/:environmentId">
            <Route index element={<HomePage />} />
            <Route path="payments" element={<PaymentsPage />} />
            <Route path="payments/:paymentId" element={<PaymentDetailPage />} />
            <Route path="subscriptions" element={<SubscriptionsPage />} />
            <Route path="subscriptions/:subscriptionId" element={<SubscriptionDetailPage />} />
            <Route path="webhooks" element={<EndpointsPage />} />
            <Route path="deliveries" element={<DeliveriesPage />} />
            <Route path="deliveries/:deliveryId" element={<DeliveriesPage />} />
            <Route path="events/:eventId" element={<EventPage />} />
            <Route path="keys" element={<ApiKeysPage />} />
            <Route path="gateways" element={<GatewaysPage />} />
            <Route path="organization" element={<OrganizationPage />} />
          </Route>
          <Route path="account/sessions" element={<SessionsPage />} />
          <Route path="operator/organizations" element={<OperatorOrganizationsPage />} />
          <Route path="*" element={<Navigate to="/" replace />} />
        </Route>
      </Routes>
    </SessionProvider>
  );
}
