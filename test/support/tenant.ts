import type { TestService } from './service';

export interface TestTenant {
  organizationId: string;
  projectId: string;
  environmentId: string;
  apiKey: string;
  apiKeyId: string;
}

/** An organization with one project, one environment of the given kind, and one API key. */
export async function createTenant(service: TestService, kind: 'sandbox' | 'production' = 'sandbox'): Promise<TestTenant> {
  const organization = await service.admin.organizations.create({ name: 'Test organization' });
  const project = await service.admin.projects.create({ organizationId: organization.id, name: 'Test project' });
  const environment = await service.admin.environments.create({ projectId: project.id, kind });
  const key = await service.admin.apiKeys.create({ environmentId: environment.id });
  return { organizationId: organization.id, projectId: project.id, environmentId: environment.id, apiKey: key.secret, apiKeyId: key.id };
}
