/**
 * The webhook tests' service: the common test service with a fast outbox
 * poll, plus helpers for instances that share a database and master key.
 */
import { randomBytes } from 'node:crypto';
import { startTestService, type TestService, type TestServiceOptions } from './service';

export { createSharedDatabase } from './database';

export type WebhookTestService = TestService;

/** A fresh master key, so instances sharing a database can open each other's sealed secrets. */
export const newMasterKey = (): string => randomBytes(32).toString('base64');

export const startWebhookService = (options: TestServiceOptions = {}): Promise<WebhookTestService> =>
  startTestService({ ...options, env: { WEBHOOK_POLL_INTERVAL_MS: '200', ...options.env } });

/** An organization, project and environment of the given kind. */
export async function createEnvironment(service: WebhookTestService, kind: 'sandbox' | 'production' = 'sandbox') {
  const organization = await service.admin.organizations.create({ name: 'Webhook test organization' });
  const project = await service.admin.projects.create({ organizationId: organization.id, name: 'Webhook test project' });
  const environment = await service.admin.environments.create({ projectId: project.id, kind });
  return { organizationId: organization.id, projectId: project.id, environmentId: environment.id };
}
