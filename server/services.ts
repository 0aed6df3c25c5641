import type { Logger } from 'pino';
import type { Config } from './config';
import type { Database } from './db/orm';
import type { GatewayDirectory } from './domain/routing/directory';
import type { SecretBox } from './domain/secret-box';
import type { SandboxSimulators } from './domain/sandbox-seam';
import type { ApiKeyCache } from './domain/authenticate';
import type { RateLimiter } from './domain/rate-limits';
import type { Mailer } from './domain/mailer';
import type { LoginThrottle } from './domain/people/throttle';
import type { WebhookRuntime } from './webhooks/runtime';

/** The long-lived collaborators of one service process, built once at start-up. */
export interface Services {
  config: Config;
  log: Logger;
  db: Database;
  rateLimiter: RateLimiter;
  /** Failed dashboard log-ins per e-mail and address (Redis with REDIS_URL, else memory). */
  loginThrottle: LoginThrottle;
  /** Per-node cache of API-key lookups, invalidated by the shared tenancy epoch. */
  apiKeys: ApiKeyCache;
  /** Routing configuration and gateway adapters, cached per environment. */
  gateways: GatewayDirectory;
  /** Invitation and password-reset mails: SMTP, or the local outbox outside production. */
  mailer: Mailer;
  /** Seals and opens secrets stored in the database (master key). */
  secrets: SecretBox;
  /** Tells the outbound webhook dispatcher that new events were committed (it also polls, so a missed nudge only delays). */
  outbox: { notify(): void };
  /** Outbound webhooks: the SSRF guard's resolver and the guarded delivery transport. */
  webhooks: WebhookRuntime;
  /** Base URL this service is reached at (PUBLIC_BASE_URL, or the listening address once started). */
  publicUrl: () => string;
  /** The sandbox simulators running inside this process (the embedded demo, tests), through their one seam; null elsewhere. */
  sandbox: SandboxSimulators | null;
  /** Injectable clock, so month boundaries and windows are testable. */
  now: () => Date;
}
