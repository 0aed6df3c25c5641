/**
 * A project's first-run checklist, each step read from what exists (never a
 * flag someone ticks): an API key and a webhook endpoint in the sandbox, a
 * test payment there, and production ready to take payments (a key and a
 * method routed to an enabled gateway account).
 */
import { ApiKey, Environment, GatewayAccount, RoutingRule, WebhookEndpoint } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { Payment } from './payments/payment';

async function ready(em: EntityManager, environmentId: string) {
  const [keys, endpoints, accounts, rules] = await Promise.all([
    em.count(ApiKey, { environment: environmentId, revokedAt: null }),
    em.count(WebhookEndpoint, { environment: environmentId, enabled: true }),
    em.find(GatewayAccount, { environment: environmentId, enabled: true }),
    em.find(RoutingRule, { environment: environmentId }),
  ]);
  const enabled = new Set(accounts.map((account) => account.gateway));
  return { apiKey: keys > 0, endpoint: endpoints > 0, routed: rules.some((rule) => enabled.has(rule.gateway)) };
}

export async function firstRunChecklist(em: EntityManager, projectId: string) {
  const environments = await em.find(Environment, { project: projectId });
  const sandbox = environments.find((environment) => environment.kind === 'sandbox') ?? null;
  const production = environments.find((environment) => environment.kind === 'production') ?? null;
  const inSandbox = sandbox ? await ready(em, sandbox.id) : null;
  const inProduction = production ? await ready(em, production.id) : null;
  const testPayment = sandbox ? (await em.count(Payment, { environment: sandbox.id })) > 0 : false;
  return {
    sandboxEnvironmentId: sandbox?.id ?? null,
    productionEnvironmentId: production?.id ?? null,
    steps: {
      apiKey: inSandbox?.apiKey ?? false,
      endpoint: inSandbox?.endpoint ?? false,
      testPayment,
      goLive: Boolean(inProduction?.apiKey && inProduction.routed),
    },
    /** What going live still lacks in production, for the step's hint. */
    production: inProduction,
  };
}
