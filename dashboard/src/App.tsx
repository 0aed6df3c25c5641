/** The pages and who sees them: the login and invitation pages without a session, the rest inside the layout. */
import { Suspense, type ReactElement, type ReactNode } from 'react';
import { createRoutesFromChildren, matchRoutes, Navigate, Route, Routes } from 'react-router';
import { SessionProvider, useSessionQuery } from './api/session';
import { isLazyPage, page } from './lazy-page';
import { Failed, Loading } from './ui/states';
import { LoginPage } from './pages/Login';
import { SecondFactorGate } from './pages/SecurityGate';

// Each page is its own chunk, the layout too: the login page loads without the tables, forms or charts.
// A new page is one line here and one <Route> below.
const AppLayout = page(() => import('./shell/AppLayout'), 'AppLayout');
const StartPage = page(() => import('./pages/Start'), 'StartPage');
const SignedInProviders = page(() => import('./shell/SignedIn'), 'SignedInProviders');
const InvitationPage = page(() => import('./pages/Invitation'));
const ForgotPasswordPage = page(() => import('./pages/ForgotPassword'));
const ResetPasswordPage = page(() => import('./pages/ResetPassword'));
const UnlockCodesPage = page(() => import('./pages/UnlockCodes'));
const HomePage = page(() => import('./pages/Home'));
const PaymentsPage = page(() => import('./pages/Payments'));
const PaymentDetailPage = page(() => import('./pages/PaymentDetail'));
const SubscriptionsPage = page(() => import('./pages/Subscriptions'));
const SubscriptionDetailPage = page(() => import('./pages/SubscriptionDetail'));
const EndpointsPage = page(() => import('./pages/Endpoints'));
const DeliveriesPage = page(() => import('./pages/Deliveries'));
const EventPage = page(() => import('./pages/Event'));
const ApiKeysPage = page(() => import('./pages/ApiKeys'));
const GatewaysPage = page(() => import('./pages/Gateways'));
const OrganizationPage = page(() => import('./pages/Organization'));
const SessionsPage = page(() => import('./pages/Sessions'));
const SecurityPage = page(() => import('./pages/Security'));
const OperatorOrganizationsPage = page(() => import('./pages/OperatorOrganizations'));
const AuditPage = page(() => import('./pages/Audit'));
const AuditOperatorPage = page(() => import('./pages/AuditOperator'));
const NotFoundPage = page(() => import('./pages/NotFound'));

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
          <Route path="/unlock-codes" element={<UnlockCodesPage />} />
          <Route path="*" element={<LoginPage />} />
        </Routes>
      </Suspense>
    );
  }
  return (
    <SessionProvider session={session.data}>
      <Suspense fallback={<Loading />}>
        <SignedInProviders>
          <SecondFactorGate>
            <Routes>{signedIn}</Routes>
          </SecondFactorGate>
        </SignedInProviders>
      </Suspense>
    </SessionProvider>
  );
}

/**
 * The pages of someone logged in. Kept outside App so that preloadFor can
 * match an address against them before the session is known.
 */
const signedIn = (
  <>
    {/* An existing account accepts an invitation logged in; a mailed reset link works whoever is logged in. */}
    <Route path="/invitation" element={standalone(<InvitationPage />)} />
    <Route path="/reset-password" element={standalone(<ResetPasswordPage />)} />
    <Route path="/unlock-codes" element={standalone(<UnlockCodesPage />)} />
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
        <Route path="audit" element={<AuditPage />} />
        {/* An unknown section of a known environment keeps that environment's navigation. */}
        <Route path="*" element={<NotFoundPage />} />
      </Route>
      <Route path="account/sessions" element={<SessionsPage />} />
      <Route path="account/security" element={<SecurityPage />} />
      <Route path="operator/organizations" element={<OperatorOrganizationsPage />} />
      <Route path="operator/audit" element={<AuditOperatorPage />} />
      {/* The addresses of logged-out pages, once logged in (there, or in another tab): the start page. */}
      <Route path="login" element={<Navigate to="/" replace />} />
      <Route path="forgot-password" element={<Navigate to="/" replace />} />
      {/* An address matching no page says so (an environment the person cannot open: ui/NotAvailable.tsx). */}
      <Route path="*" element={<NotFoundPage />} />
    </Route>
  </>
);

/**
 * Starts downloading the layout and the page of an address that only a
 * logged-in person has (`/e/…/payments`), while the session is read, so
 * opening a deep link costs one round trip less. Not for `/` or an unknown
 * address: logged out, those are the login page, which must stay light.
 * Returns whether the address is such a page.
 */
export function preloadFor(pathname: string): boolean {
  if (pathname === '/' || pathname === '') return false;
  const matches = matchRoutes(createRoutesFromChildren(signedIn.props.children), pathname);
  const leaf = matches?.at(-1)?.route;
  if (!matches || !leaf || leaf.path === '*' || !isLazyPage((leaf.element as ReactElement | undefined)?.type)) return false;
  SignedInProviders.preload();
  for (const match of matches) {
    const type = (match.route.element as ReactElement | undefined)?.type;
    if (isLazyPage(type)) type.preload();
  }
  return true;
}
