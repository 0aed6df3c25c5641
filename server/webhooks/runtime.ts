/**
 * The long-lived webhook collaborators of one service process: the resolver
 * the SSRF guard uses (the system's, or a test's), and the transport with its
 * guarded connection pools. Shared by the dispatcher and manual resends.
 */
import type { Config } from '../config';
import { createWebhookAgents } from '../outbound/guarded-agent';
import { systemResolver, type HostResolver } from '../outbound/resolver';
import { WebhookTransport } from './transport';

export interface WebhookRuntime {
  resolveHost: HostResolver;
  transport: WebhookTransport;
  close(): Promise<void>;
}

export function createWebhookRuntime(config: Config, resolveHost: HostResolver = systemResolver): WebhookRuntime {
  const agents = createWebhookAgents(resolveHost, config.webhooks.timeoutMs);
  return { resolveHost, transport: new WebhookTransport(agents, config.webhooks.timeoutMs), close: () => agents.close() };
}
