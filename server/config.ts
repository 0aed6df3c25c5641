/**
 * The service's whole configuration, read once from environment variables and
 * validated with Zod. A bad value stops start-up with a message that names the
 * variable; values are never echoed back, since some of them are secrets.
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_RATE_LIMITS, DEFAULT_WEBHOOK_TIMEOUT_MS } from './contract/limits';
import { EVENT_RETENTION_MIN_DAYS } from './contract/schemas/events';
import { DEFAULT_DATA_DIR } from './contract/local-admin-token';
import { parsePostgresUrl } from './db/postgres-url';

const boolFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** express's names for groups of proxy addresses. */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
function isAddressOrRange(entry: string): boolean {
  if (ipaddr.isValid(entry)) return true;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

const perMinute = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000).default(fallback);

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Public address merchants use; shown in the OpenAPI document's `servers`. */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * Which reverse proxies in front of the service to believe about the client's address (X-Forwarded-For) and
     * protocol: express's `trust proxy`. Unset: none, every request's address is the socket's peer.
     * `1` (a number): that many proxy hops; `loopback`, `uniquelocal`, addresses or CIDR ranges, comma-separated:
     * the proxies at those addresses. The log-in throttle counts by the address this yields.
     */
    TRUST_PROXY: z
      .string()
      .trim()
      .transform((value, ctx) => {
        if (/^\d{1,2}$/.test(value)) return Number(value);
        const entries = value.split(',').map((entry) => entry.trim());
        if (entries.every((entry) => TRUST_PROXY_NAMES.has(entry) || isAddressOrRange(entry))) return entries;
        ctx.addIssue({ code: 'custom', message: 'must be a number of proxy hops, or comma-separated addresses, CIDR ranges, loopback, linklocal or uniquelocal' });
        return z.NEVER;
      })
      .optional(),
    /** `smtp://user:pass@host:587` or `smtps://…`: where invitation and password-reset mails are sent. Required in production. */
    SMTP_URL: z.url({ protocol: /^smtps?$/, message: 'must be an smtp:// or smtps:// URL' }).optional(),
    /** The sender of those mails. */
    SMTP_FROM: z.email({ message: 'must be an e-mail address' }).default('payments@localhost'),
    /**
     * `postgres://…` selects PostgreSQL; without it the embedded PGlite database is used. Several hosts, as libpq takes
     * them (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`), for a failover pair (db/postgres-url.ts).
     */
    DATABASE_URL: z
      .string()
      .refine((text) => parsePostgresUrl(text) !== null, {
        message: 'must be a postgres:// URL (one host, or several comma-separated; target_session_attrs any, read-write, read-only, primary, standby or prefer-standby)',
      })
      .optional(),
    /**
     * PostgreSQL read replicas for operator and dashboard reads (lists, search, overview, exports): comma-separated
     * postgres:// URLs. Writes and every read that decides money stay on DATABASE_URL (db/orm.ts forkReads).
     */
    DATABASE_REPLICA_URLS: z
      .string()
      .transform((text, ctx) => {
        // A URL may itself hold commas (several hosts): a new one begins only where a scheme:// does.
        const urls = text.split(/,(?=\s*[a-z][a-z0-9+.-]*:\/\/)/i).map((url) => url.trim()).filter(Boolean);
        if (urls.length === 0 || urls.some((url) => parsePostgresUrl(url) === null)) {
          ctx.addIssue({ code: 'custom', message: 'must be comma-separated postgres:// URLs' });
          return z.NEVER;
        }
        return urls;
      })
      .optional(),
    /** Folder of the embedded database and of generated local files. */
    DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
    /** Embedded database kept in memory only (tests); ignored with DATABASE_URL. */
    DATABASE_IN_MEMORY: boolFromEnv.default(false),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** `pretty`: coloured lines for people; `json`: one JSON object per line. Default: pretty on a terminal outside production, else json. */
    LOG_FORMAT: z.enum(['pretty', 'json'], { message: 'must be pretty or json' }).optional(),
    /** `redis://…`: the store of counters shared by every node (rate limits, log-in throttle, API-key cache epoch). */
    REDIS_URL: z.url({ protocol: /^rediss?$/, message: 'must be a redis:// or rediss:// URL' }).optional(),
    /** Prefix of every Redis key this service writes, so several deployments (or test runs) can share one Redis. */
    REDIS_KEY_PREFIX: z.string().regex(/^[\w:.-]{1,64}$/, 'must be 1-64 letters, digits, _ : . or -').default('payments:'),
    /** Create the PostgreSQL database DATABASE_URL names when it does not exist (local use); otherwise a missing database stops the start. */
    DATABASE_CREATE: boolFromEnv.default(false),
    /** Bearer token of the internal admin API used by the operator CLI; generated into DATA_DIR when absent outside production. */
    ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Base64 of 32 random bytes: encrypts gateway credentials and webhook signing secrets at rest; generated into DATA_DIR when absent outside production. */
    MASTER_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be the base64 of exactly 32 bytes (openssl rand -base64 32)')
      .optional(),
    /** Create the demo organization, project, sandbox environment and key on first start. */
    SEED_DEMO: boolFromEnv.optional(),
    MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(DEFAULT_MAX_BODY_BYTES),
    /** After SIGTERM, /readyz answers `draining` this long while everything else is served, so balancers stop sending first. */
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
    /** After the drain, how long in-flight requests, webhook attempts and background passes may take before the process exits anyway. */
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
    /** A client must have sent a request's headers within this time (slow-header connections are cut). */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(10_000),
    /** A client must have sent a whole request (headers and body) within this time; answers, streams included, are not limited. */
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
    /** An idle keep-alive connection is closed after this time. */
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(5_000),
    GATEWAY_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(3_000),
    GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    RATE_LIMIT_PAYMENTS_CREATE: perMinute(DEFAULT_RATE_LIMITS.payments_create),
    RATE_LIMIT_PAYMENTS_SYNC: perMinute(DEFAULT_RATE_LIMITS.payments_sync),
    RATE_LIMIT_PAYMENTS_CANCEL: perMinute(DEFAULT_RATE_LIMITS.payments_cancel),
    RATE_LIMIT_DEFAULT: perMinute(DEFAULT_RATE_LIMITS.default),
    /**
     * Local development only: lets sandbox webhook endpoints use http:// and local or private addresses. Refused in production.
     * Unset, it is on for the embedded demo only (isEmbeddedDemo: a receiver on this machine is the only one a trial can
     * have) and off otherwise, SEED_DEMO=true on PostgreSQL included.
     */
    WEBHOOK_ALLOW_LOCAL_URLS: boolFromEnv.optional(),
    /** Whole webhook delivery attempt (connect, headers); a 2xx later than this is a failure (the contract gives receivers 8 s). */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(DEFAULT_WEBHOOK_TIMEOUT_MS),
    /** Run the outbound webhook dispatcher in this process (false: an API-only node; another node delivers). */
    WEBHOOK_DISPATCHER: boolFromEnv.default(true),
    /** How often the dispatcher looks for committed events it was not told about (other nodes, restarts). */
    WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(2_000),
    /** How long a claimed delivery belongs to one node; after it, an interrupted attempt is made again. */
    WEBHOOK_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
    /**
     * Endpoints with automatic retries on (decision 23): the delay before each retry of a delivery failed by timeout,
     * network error or 5xx, counted from the failed attempt; after the last one it is FAILED (durations as above).
     */
    WEBHOOK_RETRY_SCHEDULE: durationList('1m,5m,30m,2h,8h,24h', { maxCount: 20, maxText: '7d' }),
    /**
     * Days events stay listable on GET /v1/events before pruning; at least 30, what merchants are promised (decision 19).
     * Pruning runs on every node in small batches and skips events whose deliveries are not finished.
     */
    EVENT_RETENTION_DAYS: z.coerce.number().int().min(EVENT_RETENTION_MIN_DAYS).max(3_650).default(EVENT_RETENTION_MIN_DAYS),
    /** Run background reconciliation in this process (false: another node reads unfinished resources from their gateways). */
    RECONCILIATION: boolFromEnv.default(true),
    /**
     * When an unfinished payment or subscription is read back from its gateway: the delay after its creation, then
     * after each read, the last one repeating (durations such as `500ms`, `30s`, `5m`, `1h`).
     */
    RECONCILIATION_SCHEDULE: durationList('1m,5m,30m,1h', { maxText: '7d' }),
    /**
     * Late money (decision 28): after a payment ends without its gateway's word (a Pix expired by our clock, a payment
     * canceled by the service, an attempt abandoned by a fallback), the delays between its reads while it is watched,
     * the step chosen by the time since it ended, the last one repeating (durations as above).
     */
    RECONCILIATION_LATE_SCHEDULE: durationList('1m,5m,15m,1h,3h,6h', { maxCount: 20, maxText: '1d' }),
    /** How long after it ended such a payment (or abandoned attempt) is watched for late money: at least a day in production. */
    RECONCILIATION_LATE_WINDOW: z
      .string()
      .default('24h')
      .transform((text, ctx) => {
        const ms = durationMs(text.trim());
        if (ms === null || ms < 1_000 || ms > 30 * 86_400_000) {
          ctx.addIssue({ code: 'custom', message: 'must be a duration between 1s and 30d, such as 24h' });
          return z.NEVER;
        }
        return ms;
      }),
    /** How often reconciliation looks for what is due. */
    RECONCILIATION_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
    /** Reconciliation reads per second per gateway, for all nodes together when REDIS_URL is set (else per node). */
    RECONCILIATION_RATE_PER_GATEWAY: z.coerce.number().int().min(1).max(1_000).default(5),
    /** Routing's circuit breaker (decision 21): a gateway is skipped for ROUTING_BREAKER_COOLDOWN_MS after this many unavailable creates in a row… */
    ROUTING_BREAKER_CONSECUTIVE: z.coerce.number().int().min(1).max(1_000).default(5),
    /** …or when at least ROUTING_BREAKER_MIN_CALLS creates of the last ROUTING_BREAKER_WINDOW_MS failed at this rate (0-1). */
    ROUTING_BREAKER_FAILURE_RATE: z.coerce.number().gt(0).max(1).default(0.5),
    ROUTING_BREAKER_MIN_CALLS: z.coerce.number().int().min(1).max(100_000).default(10),
    ROUTING_BREAKER_WINDOW_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    /** How long an open breaker skips its gateway before one probe create is let through. */
    ROUTING_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
    /**
     * A second listener serving only `GET /metrics`, without credentials, for Prometheus (bind it where only Prometheus
     * reaches: METRICS_HOST). Unset: no such listener; /metrics stays on PORT behind the admin token.
     */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** Address of the METRICS_PORT listener (default HOST). */
    METRICS_HOST: z.string().min(1).optional(),
    /**
     * OTLP/HTTP (protobuf) endpoint receiving traces, e.g. `http://collector:4318`: set, the service starts the
     * OpenTelemetry SDK before anything else loads (server/start.ts); unset, nothing of OpenTelemetry is loaded.
     * Read there and by the SDK itself (as are the other OTEL_* variables); only validated here, so a typo stops the start.
     */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' }).optional(),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && !env.ADMIN_TOKEN) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_TOKEN'], message: 'is required when NODE_ENV=production' });
    }
    if (env.NODE_ENV === 'production' && !env.MASTER_KEY) {
      ctx.addIssue({ code: 'custom', path: ['MASTER_KEY'], message: 'is required when NODE_ENV=production' });
    }
    if (env.NODE_ENV === 'production' && !env.DATABASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_URL'], message: 'is required when NODE_ENV=production (the embedded database is for development)' });
    }
    if (env.DATABASE_REPLICA_URLS && !env.DATABASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_REPLICA_URLS'], message: 'needs DATABASE_URL (replicas are of a PostgreSQL primary)' });
    }
    if (env.NODE_ENV === 'production' && !env.SMTP_URL) {
      ctx.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'is required when NODE_ENV=production (invitations and password resets reach people by mail only)' });
    }
    if (env.NODE_ENV === 'production' && env.WEBHOOK_ALLOW_LOCAL_URLS) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ALLOW_LOCAL_URLS'], message: 'is refused when NODE_ENV=production (it would let webhooks reach internal addresses)' });
    }
    if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'must not be longer than HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)' });
    }
    if (env.METRICS_PORT !== undefined && env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
      ctx.addIssue({ code: 'custom', path: ['METRICS_PORT'], message: 'must differ from PORT (the metrics listener is a listener of its own)' });
    }
    if (env.WEBHOOK_LEASE_MS <= env.WEBHOOK_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_LEASE_MS'], message: 'must be longer than WEBHOOK_TIMEOUT_MS (a live attempt must never be taken over)' });
    }
  });

export type Env = z.infer<typeof EnvSchema>;

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `30s`, `5m`, `1h`, `2d` in milliseconds; null when not such a duration. */
function durationMs(text: string): number | null {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  return match ? Number(match[1]) * DURATION_UNITS_MS[match[2]!]! : null;
}

/** A schedule: comma-separated durations (`1m,5m,30m`), each from 100ms to `maxText`, at most `maxCount` of them where given; else refused naming the default as an example. */
function durationList(defaultText: string, limits: { maxCount?: number; maxText: string }) {
  return z
    .string()
    .default(defaultText)
    .transform((text, ctx) => {
      const maxMs = durationMs(limits.maxText)!;
      const delays = text.split(',').map((part) => durationMs(part.trim()));
      if (delays.length === 0 || delays.length > (limits.maxCount ?? Infinity) || delays.some((ms) => ms === null || ms < 100 || ms > maxMs)) {
        const count = limits.maxCount ? `at most ${limits.maxCount} ` : '';
        ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of ${count}durations between 100ms and ${limits.maxText}, such as ${defaultText}` });
        return z.NEVER;
      }
      return delays as number[];
    });
}

export interface Config {
  env: Env['NODE_ENV'];
  host: string;
  port: number;
  publicBaseUrl: string | undefined;
  /** express's `trust proxy` (TRUST_PROXY): false, a number of hops, or the proxies' addresses. */
  trustProxy: false | number | string[];
  /** `replicaUrls`: read replicas for operator reads (DATABASE_REPLICA_URLS), absent without them. */
  database: { kind: 'postgresql'; url: string; replicaUrls?: readonly string[] } | { kind: 'pglite'; dataDir: string | null };
  dataDir: string;
  logLevel: Env['LOG_LEVEL'];
  /** Undefined: decided at start from whether stdout is a terminal (runtime/logger.ts). */
  logFormat: 'pretty' | 'json' | undefined;
  /** Shared counters (REDIS_URL, REDIS_KEY_PREFIX); null: counters live in this process's memory. */
  redis: { url: string; keyPrefix: string } | null;
  /** Create a missing PostgreSQL database at start (DATABASE_CREATE). */
  databaseCreate: boolean;
  adminToken: string | undefined;
  masterKey: Buffer | undefined;
  seedDemo: boolean;
  maxBodyBytes: number;
  /** SIGTERM to listener close: /readyz answers `draining`, everything else is served (SHUTDOWN_DRAIN_MS). */
  shutdownDrainMs: number;
  shutdownTimeoutMs: number;
  /** Outgoing mail: SMTP (SMTP_URL, SMTP_FROM), or null: the local outbox under DATA_DIR (never in production). */
  mail: { smtpUrl: string | null; from: string };
  /** Inbound connections (HTTP_*_TIMEOUT_MS). */
  httpTimeouts: { headersMs: number; requestMs: number; keepAliveMs: number };
  /** Outbound calls to gateways: connect, and the whole call. */
  gatewayTimeouts: { connectMs: number; totalMs: number };
  rateLimits: {
    payments_create: number;
    payments_sync: number;
    payments_cancel: number;
    default: number;
  };
  /** Routing's circuit breaker per gateway and environment (domain/routing/health.ts). */
  routingBreaker: { consecutive: number; failureRate: number; minCalls: number; windowMs: number; cooldownMs: number };
  /** Background reconciliation (server/domain/reconciliation). */
  reconciliation: {
    enabled: boolean;
    scheduleMs: number[];
    pollIntervalMs: number;
    ratePerGatewayPerSecond: number;
    /** Late money (decision 28): the delays between reads of what ended without its gateway's word, and for how long after it ended. */
    lateScheduleMs: number[];
    lateWindowMs: number;
  };
  /** Outbound webhooks (server/webhooks). `allowLocalUrls`: WEBHOOK_ALLOW_LOCAL_URLS as set; null: the embedded demo's default (url-guard.ts). */
  webhooks: { allowLocalUrls: boolean | null; timeoutMs: number; dispatcher: boolean; pollIntervalMs: number; leaseMs: number; retryScheduleMs: number[] };
  /** The events API (GET /v1/events): how long events are kept before pruning. */
  events: { retentionDays: number };
  /** The credential-free /metrics listener (METRICS_PORT, METRICS_HOST); null: /metrics only on PORT, behind the admin token. */
  metricsListener: { host: string; port: number } | null;
}

/**
 * The embedded demo: the default `npm start`, on the embedded PGlite database
 * with the demo tenant, outside production. The one place that decides it.
 * It is one process on one machine with a private data folder, so whoever
 * uses it sits at that machine: an invitation's link may be shown to whoever
 * invited (decision 22: nobody else would receive the mail), and sandbox
 * webhooks may reach this machine. A start on PostgreSQL is shared by people
 * (staging, several nodes) and is never the demo, SEED_DEMO=true or not.
 */
export const isEmbeddedDemo = (config: Pick<Config, 'env' | 'database' | 'seedDemo'>): boolean =>
  config.database.kind === 'pglite' && config.seedDemo && config.env !== 'production';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  return {
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    publicBaseUrl: env.PUBLIC_BASE_URL,
    trustProxy: env.TRUST_PROXY ?? false,
    database: env.DATABASE_URL
      ? { kind: 'postgresql', url: env.DATABASE_URL, ...(env.DATABASE_REPLICA_URLS ? { replicaUrls: env.DATABASE_REPLICA_URLS } : {}) }
      : { kind: 'pglite', dataDir: env.DATABASE_IN_MEMORY ? null : `${env.DATA_DIR}/pg` },
    dataDir: env.DATA_DIR,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    redis: env.REDIS_URL ? { url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX } : null,
    databaseCreate: env.DATABASE_CREATE,
    adminToken: env.ADMIN_TOKEN,
    masterKey: env.MASTER_KEY ? Buffer.from(env.MASTER_KEY, 'base64') : undefined,
    seedDemo: env.SEED_DEMO ?? !env.DATABASE_URL,
    maxBodyBytes: env.MAX_BODY_BYTES,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    mail: { smtpUrl: env.SMTP_URL ?? null, from: env.SMTP_FROM },
    httpTimeouts: { headersMs: env.HTTP_HEADERS_TIMEOUT_MS, requestMs: env.HTTP_REQUEST_TIMEOUT_MS, keepAliveMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS },
    gatewayTimeouts: { connectMs: env.GATEWAY_CONNECT_TIMEOUT_MS, totalMs: env.GATEWAY_TIMEOUT_MS },
    rateLimits: {
      payments_create: env.RATE_LIMIT_PAYMENTS_CREATE,
      payments_sync: env.RATE_LIMIT_PAYMENTS_SYNC,
      payments_cancel: env.RATE_LIMIT_PAYMENTS_CANCEL,
      default: env.RATE_LIMIT_DEFAULT,
    },
    webhooks: {
      allowLocalUrls: env.WEBHOOK_ALLOW_LOCAL_URLS ?? null,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      dispatcher: env.WEBHOOK_DISPATCHER,
      pollIntervalMs: env.WEBHOOK_POLL_INTERVAL_MS,
      leaseMs: env.WEBHOOK_LEASE_MS,
      retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE,
    },
    reconciliation: {
      enabled: env.RECONCILIATION,
      scheduleMs: env.RECONCILIATION_SCHEDULE,
      pollIntervalMs: env.RECONCILIATION_POLL_INTERVAL_MS,
      ratePerGatewayPerSecond: env.RECONCILIATION_RATE_PER_GATEWAY,
      lateScheduleMs: env.RECONCILIATION_LATE_SCHEDULE,
      lateWindowMs: env.RECONCILIATION_LATE_WINDOW,
    },
    routingBreaker: {
      consecutive: env.ROUTING_BREAKER_CONSECUTIVE,
      failureRate: env.ROUTING_BREAKER_FAILURE_RATE,
      minCalls: env.ROUTING_BREAKER_MIN_CALLS,
      windowMs: env.ROUTING_BREAKER_WINDOW_MS,
      cooldownMs: env.ROUTING_BREAKER_COOLDOWN_MS,
    },
    events: { retentionDays: env.EVENT_RETENTION_DAYS },
    metricsListener: env.METRICS_PORT === undefined ? null : { host: env.METRICS_HOST ?? env.HOST, port: env.METRICS_PORT },
  };
}
