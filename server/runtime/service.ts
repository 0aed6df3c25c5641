/**
 * Builds and runs one service process: database (migrated), shared counters
 * (rate limits, log-in throttle, API-key cache epoch: Redis or memory),
 * HTTP server. Used by `npm start` and by the tests, which start real
 * services on ephemeral ports.
 */
import type { Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config';
import { openDatabase } from '../db/orm';
import { ENTITIES } from '../domain/entities';
import { createApp } from '../http/app';
import { metricsServer } from '../http/metrics';
import { registerOutboxLag } from '../observability/outbox-lag';
import { registerReconciliationBacklog } from '../observability/reconciliation-backlog';
import { tracing } from '../observability/trace-seam';
import { traceEmbeddedStatements } from '../observability/embedded-db-spans';
import { answerUnparsableRequests } from '../http/edge';
import type { Readiness } from '../http/probes';
import { countingRefusals, createMemoryRateLimiter, createRedisRateLimiter } from './rate-limit-stores';
import { createMemoryLoginThrottle, createRedisLoginThrottle } from './login-throttle-stores';
import { connectSharedStore } from './redis';
import { localTenancyEpoch, redisTenancyEpoch } from './tenancy-epochs';
import { ApiKeyCache, CACHE_TTL_MS } from '../domain/authenticate';
import type { Services } from '../services';
import { GatewayDirectory } from '../domain/routing/directory';
import { GatewayHealth } from '../domain/routing/health';
import { createMemoryHealthStore, createRedisHealthStore } from './gateway-health-stores';
import { SecretBox } from '../domain/secret-box';
import { WebhookDispatcher } from '../webhooks/dispatcher';
import { Reconciler } from '../domain/reconciliation/reconciler';
import { EventPruner } from '../domain/events-feed/prune';
import { guardedConnector } from '../outbound/guarded-agent';
import type { HostResolver } from '../outbound/resolver';
import { gatewayUrlPolicy } from '../outbound/url-guard';
import { createWebhookRuntime } from '../webhooks/runtime';
import { localAdminToken, localMasterKey } from './local-secrets';
import { outboxMailer, smtpMailer } from './mail-transports';
import { bindPort, claimDataFolder, databaseFailure, StartupError, type BoundPort } from './startup';
import type { Logger } from './logger';

export interface RunningService {
  url: string;
  /** The credential-free metrics listener's `/metrics` (METRICS_PORT); null without one. */
  metricsUrl: string | null;
  services: Services;
  adminToken: string;
  /** This node's background reconciliation; null with RECONCILIATION=false. */
  reconciler: Reconciler | null;
  /**
   * Drains for `drainMs` (default 0: at once): /readyz answers `draining` and every response says `Connection: close`
   * while everything is still served. Then stops accepting connections, closes the idle ones, lets in-flight requests,
   * webhook attempts and the background jobs' passes finish (requests up to the shutdown timeout), closes the stores.
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

export async function startService(config: Config, log: Logger, options: { now?: () => Date; resolveHost?: HostResolver } = {}): Promise<RunningService> {
  // The data folder and the port first: a second start on either stops before the database is opened.
  const dataFolder = claimDataFolder(config);
  let bound: BoundPort;
  let db: Awaited<ReturnType<typeof openDatabase>>;
  try {
    bound = await bindPort(config);
    try {
      db = await openDatabase(config.database, ENTITIES, { create: config.databaseCreate, logger: (message) => log.info({ component: 'database' }, message.replace(/\x1b\[[0-9;]*m/g, '')) });
    } catch (error) {
      await bound.close();
      throw databaseFailure(error, config);
    }
  } catch (error) {
    dataFolder.release();
    throw error;
  }
  // With tracing on, PGlite's statements get spans by hand (PostgreSQL's come from the pg instrumentation).
  if (tracing.on && db.kind === 'pglite') traceEmbeddedStatements(db);
  // Trace export failing (and recovering) is told in this service's log.
  tracing.logTo(log);
  // Counters every node shares: Redis with REDIS_URL; otherwise this process's memory (one node).
  const shared = config.redis ? connectSharedStore(config.redis, log) : null;
  if (!shared && config.database.kind === 'postgresql') {
    log.warn(
      { component: 'startup' },
      'REDIS_URL is not set: rate limits are counted per node, and another node\'s key revocation reaches this node within 1 s; set REDIS_URL when more than one node serves this database',
    );
  }
  const rateLimiter = countingRefusals(shared ? createRedisRateLimiter(shared) : createMemoryRateLimiter());
  const loginThrottle = shared ? createRedisLoginThrottle(shared) : createMemoryLoginThrottle();
  // Without a shared epoch on PostgreSQL another node's change reaches this node's cache within a second.
  const epoch = shared ? redisTenancyEpoch(shared) : localTenancyEpoch();
  const keyCacheTtlMs = shared || config.database.kind === 'pglite' ? CACHE_TTL_MS : 1_000;
  const apiKeys = new ApiKeyCache(epoch, (error) => log.warn({ err: error }, 'could not record when an API key was last used'), keyCacheTtlMs);
  let publicUrl = config.publicBaseUrl ?? `http://localhost:${config.port}`;
  const secrets = new SecretBox(config.masterKey ?? localMasterKey(config.dataDir));
  const webhooks = createWebhookRuntime(config, options.resolveHost);
  const mailer = config.mail.smtpUrl ? smtpMailer(config.mail.smtpUrl, config.mail.from) : outboxMailer(config.dataDir, config.mail.from);
  // Gateway calls pass the same address guard as webhook deliveries, at connect time (production; see gatewayUrlPolicy).
  const connector = gatewayUrlPolicy(config).allowLocal ? undefined : guardedConnector(webhooks.resolveHost, config.gatewayTimeouts.connectMs);
  // The breaker's state is shared through Redis when configured; a probe may take the gateway's whole timeout.
  const health = new GatewayHealth(config.routingBreaker, config.gatewayTimeouts.totalMs + 1_000, shared ? createRedisHealthStore(shared) : createMemoryHealthStore());
  const gateways = new GatewayDirectory(secrets, health, { timeouts: config.gatewayTimeouts, connector });
  const services: Services = { config, log, db, rateLimiter, loginThrottle, apiKeys, mailer, secrets, gateways, outbox: { notify: () => {} }, webhooks, publicUrl: () => publicUrl, sandbox: null, now: options.now ?? (() => new Date()) };
  // The dispatcher replaces the no-op outbox; without it (WEBHOOK_DISPATCHER=false) another instance delivers.
  const dispatcher = config.webhooks.dispatcher ? new WebhookDispatcher(services) : null;
  if (dispatcher) services.outbox = dispatcher;
  // Without it (RECONCILIATION=false) another node reads unfinished resources back from their gateways.
  const reconciler = config.reconciliation.enabled ? new Reconciler(services) : null;
  // Every node prunes events past EVENT_RETENTION_DAYS; their batches skip each other's rows.
  const eventPruner = new EventPruner(services);
  const adminToken = config.adminToken ?? localAdminToken(config.dataDir);

  /** Set once close() begins: the node is draining. */
  let closing: Promise<void> | undefined;
  let server: Server;
  try {
    const readiness: Readiness = {
      draining: () => closing !== undefined,
      database: () => db.fork().getConnection().execute('select 1'),
      redis: shared ? () => shared.client.ping() : null,
    };
    const app = createApp(services, { adminToken, readiness });
    server = bound.serve(app);
    // Before the app's own listener, so even an answer written at once carries it: a client that keeps its connection
    // to a draining node would send its next request into a closed listener.
    server.prependListener('request', (_req, res: ServerResponse) => {
      if (closing) res.setHeader('connection', 'close');
    });
    answerUnparsableRequests(server, log);
  } catch (error) {
    await bound.close();
    await webhooks.close();
    await rateLimiter.close();
    await shared?.close();
    await db.close();
    dataFolder.release();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  // Read on each scrape from this service's database; unregistered at close.
  const unregisterOutboxLag = registerOutboxLag(db);
  const unregisterReconciliationBacklog = registerReconciliationBacklog(db, services.now);
  let metrics: Server | null = null;
  let metricsUrl: string | null = null;
  if (config.metricsListener) {
    const listener = metricsServer((error) => log.error({ err: error }, 'metrics scrape failed'));
    metrics = listener;
    try {
      listener.listen(config.metricsListener.port, config.metricsListener.host);
      await once(listener, 'listening');
    } catch (error) {
      unregisterOutboxLag();
      unregisterReconciliationBacklog();
      server.close();
      await webhooks.close();
      await rateLimiter.close();
      await shared?.close();
      await db.close();
      dataFolder.release();
      const code = (error as { code?: string }).code;
      throw code === 'EADDRINUSE' ? new StartupError(`METRICS_PORT ${config.metricsListener.port} is already in use on ${config.metricsListener.host}; set METRICS_PORT to a free port.`) : error;
    }
    const metricsHost = ['0.0.0.0', '::'].includes(config.metricsListener.host) ? '127.0.0.1' : config.metricsListener.host;
    metricsUrl = `http://${metricsHost.includes(':') ? `[${metricsHost}]` : metricsHost}:${(listener.address() as AddressInfo).port}/metrics`;
  }
  if (!config.publicBaseUrl) publicUrl = `http://${host}:${port}`;
  dispatcher?.start();
  reconciler?.start();
  eventPruner.start();

  const close = ({ drainMs = 0 }: { drainMs?: number } = {}) =>
    (closing ??= (async () => {
      // Still serving everything while the balancer's probes read `draining` and it stops sending here.
      if (drainMs > 0) await sleep(drainMs);
      log.info({ component: 'shutdown' }, 'drain over: closing the listener, finishing in-flight requests and webhook attempts');
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await drained;
      clearTimeout(deadline);
      unregisterOutboxLag();
      unregisterReconciliationBacklog();
      await new Promise<void>((resolve) => (metrics ? metrics.close(() => resolve()) : resolve()));
      await reconciler?.stop();
      await eventPruner.stop();
      await dispatcher?.stop();
      await webhooks.close();
      await gateways.close();
      await mailer.close();
      await services.sandbox?.close();
      await rateLimiter.close();
      await shared?.close();
      await db.close();
      dataFolder.release();
      // The spans of the last requests and deliveries are still buffered: sent now, before the process exits (no-op without tracing).
      await tracing.shutdown().catch((error: unknown) => log.warn({ err: error }, 'could not send the last traces'));
    })());

  return { url: `http://${host}:${port}`, metricsUrl, services, adminToken, reconciler, close };
}
