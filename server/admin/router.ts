import { adminT as t } from './procedure';
import { apiKeysRouter } from './api-keys';
import { gatewaysRouter, routingRouter } from './gateways';
import { simulatorsRouter } from './simulators';
import { environmentsRouter, organizationsRouter, projectsRouter } from './tenancy';
import { webhooksRouter } from './webhooks';

/** The internal operator API (not part of /v1), served at /internal/trpc. */
export const adminRouter = t.router({
  organizations: organizationsRouter,
  projects: projectsRouter,
  environments: environmentsRouter,
  apiKeys: apiKeysRouter,
  gateways: gatewaysRouter,
  routing: routingRouter,
  simulators: simulatorsRouter,
  webhooks: webhooksRouter,
});
export type AdminRouter = typeof adminRouter;
