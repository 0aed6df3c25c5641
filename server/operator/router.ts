import { operatorT as t } from './procedure';
import { apiKeysRouter } from './api-keys';
import { eventsRouter } from './events';
import { onboardingRouter } from './onboarding';
import { gatewaysRouter, routingRouter } from './gateways';
import { simulatorsRouter } from './simulators';
import { environmentsRouter, organizationsRouter, projectsRouter } from './tenancy';
import { webhooksRouter } from './webhooks';
import { authRouter } from './auth';
import { membersRouter, usersRouter } from './members';
import { paymentsRouter } from './payments';
import { subscriptionsRouter } from './subscriptions';
import { overviewRouter } from './overview';
import { sandboxRouter } from './sandbox-payments';
import { reconciliationRouter } from './reconciliation';
import { refundsRouter } from './refunds';
import { auditRouter } from './audit';

/** The internal operator API (not part of /v1), served at /internal/trpc. */
export const operatorRouter = t.router({
  organizations: organizationsRouter,
  projects: projectsRouter,
  environments: environmentsRouter,
  apiKeys: apiKeysRouter,
  gateways: gatewaysRouter,
  routing: routingRouter,
  simulators: simulatorsRouter,
  webhooks: webhooksRouter,
  payments: paymentsRouter,
  refunds: refundsRouter,
  subscriptions: subscriptionsRouter,
  overview: overviewRouter,
  sandbox: sandboxRouter,
  reconciliation: reconciliationRouter,
  auth: authRouter,
  members: membersRouter,
  users: usersRouter,
  events: eventsRouter,
  onboarding: onboardingRouter,
  audit: auditRouter,
});
export type OperatorRouter = typeof operatorRouter;
