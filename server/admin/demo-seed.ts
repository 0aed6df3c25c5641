/**
 * First start of the embedded default: a demo organization, project, sandbox
 * environment and API key, created through the operator procedures like any
 * operator would. The key is kept in the data folder so later starts can show
 * it again (it is a local sandbox key; the database only has its hash).
 */
import type { Services } from '../services';
import { DEMO_KEY_FILE, readLocalSecret, writeLocalSecret } from '../runtime/local-secrets';
import { adminContext } from './procedure';
import { adminRouter } from './router';

export interface DemoTenant {
  organizationId: string;
  environmentId: string;
  apiKey: string;
}

export async function ensureDemoTenant(services: Services): Promise<DemoTenant | null> {
  const admin = adminRouter.createCaller(adminContext(services));
  const organizations = await admin.organizations.list();
  const demo = organizations.find((o) => o.name === 'Demo organization');
  if (demo) {
    const apiKey = readLocalSecret(services.config.dataDir, DEMO_KEY_FILE);
    const environmentId = readLocalSecret(services.config.dataDir, `${DEMO_KEY_FILE}.env`);
    return apiKey && environmentId ? { organizationId: demo.id, environmentId, apiKey } : null;
  }
  if (organizations.length > 0) return null; // a real installation: never add demo data to it

  const organization = await admin.organizations.create({ name: 'Demo organization' });
  const project = await admin.projects.create({ organizationId: organization.id, name: 'Demo shop' });
  const environment = await admin.environments.create({ projectId: project.id, kind: 'sandbox' });
  const key = await admin.apiKeys.create({ environmentId: environment.id, name: 'demo' });
  writeLocalSecret(services.config.dataDir, DEMO_KEY_FILE, key.secret);
  writeLocalSecret(services.config.dataDir, `${DEMO_KEY_FILE}.env`, environment.id);
  return { organizationId: organization.id, environmentId: environment.id, apiKey: key.secret };
}
