/**
 * First start of the embedded default: a demo organization, project, sandbox
 * environment and API key, and a dashboard user who owns the organization,
 * created through the operator procedures like any operator would. The key
 * and the user's password are kept in the data folder so later starts can
 * show them again (local sandbox secrets; the database only has their hashes).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { User } from '../db/entities';
import { verifyPassword } from '../domain/people/passwords';
import type { Services } from '../services';
import { DEMO_KEY_FILE, DEMO_PASSWORD_FILE, readLocalSecret, writeLocalSecret } from '../runtime/local-secrets';
import { operatorContext } from '../operator/procedure';
import { operatorRouter } from '../operator/router';

export interface DemoTenant {
  organizationId: string;
  environmentId: string;
  apiKey: string;
  /**
   * Who logs in to the dashboard, with the generated password while it is
   * still theirs (null once they changed it); null when its password file is
   * gone (then use the CLI's `users`).
   */
  dashboardUser: { email: string; password: string | null } | null;
}

export const DEMO_USER_EMAIL = 'demo@example.com';

type OperatorCaller = ReturnType<typeof operatorRouter.createCaller>;

/**
 * The demo's dashboard user: the organization's owner and a platform
 * operator, so every page and action of the dashboard can be tried. Created
 * once (also on a data folder from before the dashboard existed).
 */
async function ensureDemoUser(operator: OperatorCaller, services: Services, organizationId: string): Promise<DemoTenant['dashboardUser']> {
  const users = await operator.users.list();
  if (users.some((user) => user.email === DEMO_USER_EMAIL)) {
    const password = readLocalSecret(services.config.dataDir, DEMO_PASSWORD_FILE);
    if (!password) return null;
    const user = await services.db.fork().findOneOrFail(User, { email: DEMO_USER_EMAIL });
    if (await verifyPassword(password, user.passwordHash)) return { email: DEMO_USER_EMAIL, password };
    // They chose their own: the generated one opens nothing any more, so it is neither kept nor printed.
    rmSync(join(services.config.dataDir, DEMO_PASSWORD_FILE), { force: true });
    return { email: DEMO_USER_EMAIL, password: null };
  }
  const password = randomBytes(12).toString('base64url');
  await operator.users.create({ email: DEMO_USER_EMAIL, password, platformOperator: true });
  await operator.members.add({ organizationId, email: DEMO_USER_EMAIL, role: 'owner' });
  writeLocalSecret(services.config.dataDir, DEMO_PASSWORD_FILE, password);
  return { email: DEMO_USER_EMAIL, password };
}

export async function ensureDemoTenant(services: Services): Promise<DemoTenant | null> {
  const operator = operatorRouter.createCaller(operatorContext(services));
  const organizations = await operator.organizations.list();
  const demo = organizations.find((o) => o.name === 'Demo organization');
  if (demo) {
    const apiKey = readLocalSecret(services.config.dataDir, DEMO_KEY_FILE);
    const environmentId = readLocalSecret(services.config.dataDir, `${DEMO_KEY_FILE}.env`);
    if (!apiKey || !environmentId) return null;
    return { organizationId: demo.id, environmentId, apiKey, dashboardUser: await ensureDemoUser(operator, services, demo.id) };
  }
  if (organizations.length > 0) return null; // a real installation: never add demo data to it

  const organization = await operator.organizations.create({ name: 'Demo organization' });
  const project = await operator.projects.create({ organizationId: organization.id, name: 'Demo shop' });
  const environment = await operator.environments.create({ projectId: project.id, kind: 'sandbox' });
  const key = await operator.apiKeys.create({ environmentId: environment.id, name: 'demo' });
  writeLocalSecret(services.config.dataDir, DEMO_KEY_FILE, key.secret);
  writeLocalSecret(services.config.dataDir, `${DEMO_KEY_FILE}.env`, environment.id);
  const dashboardUser = await ensureDemoUser(operator, services, organization.id);
  return { organizationId: organization.id, environmentId: environment.id, apiKey: key.secret, dashboardUser };
}
