/**
 * `npm start`: one service process, with the demo tenant on the embedded
 * default. In a terminal it ends its start with a banner for a person; with
 * JSON logs (a pipe, a container, production) with one `listening` log line.
 */
import './runtime/require-node';
import { ConfigError, isEmbeddedDemo, loadConfig, type Config } from './config';
import { resolve } from 'node:path';
import { chooseLogFormat, createLogger } from './runtime/logger';
import { startService, type RunningService } from './runtime/service';
import { explainStartupFailure } from './runtime/startup';
import { OUTBOX_FOLDER } from './runtime/mail-transports';
import { ADMIN_TOKEN_FILE } from './contract/local-admin-token';
import { DEMO_KEY_FILE, DEMO_PASSWORD_FILE } from './runtime/local-secrets';

/** Past the drain and the shutdown timeout, the time the stores get to close before the process exits anyway. */
const CEILING_GRACE_MS = 1_000;

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const logFormat = chooseLogFormat(config.logFormat, config.env);
const log = createLogger(config.logLevel, undefined, logFormat);
let service: RunningService;
try {
  service = await startService(config, log);
} catch (error) {
  // A port in use, an unreachable database, a bad HOST or DATA_DIR: one line that says what to change, no stack.
  const explained = explainStartupFailure(error, config);
  if (!explained) throw error;
  process.stderr.write(`${explained}\n`);
  process.exit(1);
}
// The sandbox wing is loaded only here, and only for the demo.
const seeding = config.seedDemo ? import('./sandbox/demo').then((module) => module.startDemo(service.services)) : Promise.resolve(null);

// As soon as the service listens: its health already answers, so an orchestrator may stop it while the demo is still
// being seeded, and must get a clean shutdown (a signal before these handlers would kill the process outright).
// A signal during that seeding waits for it to end before closing, rather than closing the database under it.
// A rolling restart: SIGTERM (what an orchestrator sends) drains first (/readyz `draining` for SHUTDOWN_DRAIN_MS, everything
// else still served), then in-flight work finishes; SHUTDOWN_TIMEOUT_MS after the drain the process exits anyway. SIGINT is
// a person's Ctrl-C, with no balancer to tell: no drain. A second signal exits at once.
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now, without waiting for in-flight work');
      process.exit(1);
    }
    stopping = true;
    const drainMs = signal === 'SIGTERM' ? config.shutdownDrainMs : 0;
    log.info({ signal, drainMs }, 'shutting down: draining (/readyz answers draining), then finishing in-flight requests');
    const ceiling = setTimeout(() => {
      log.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown did not finish within SHUTDOWN_TIMEOUT_MS after the drain: exiting');
      process.exit(1);
    }, drainMs + config.shutdownTimeoutMs + CEILING_GRACE_MS);
    ceiling.unref();
    void seeding
      .catch(() => undefined)
      .then(() => service.close({ drainMs }))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  });
}

const demo = await seeding;

const where = config.database.kind === 'postgresql' ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.database.dataDir ?? 'memory'}`;
const cli = operatorCommand(service.url);
const dashboard = `${service.services.publicUrl().replace(/\/$/, '')}/dashboard/`;
const lines = [
  '',
  `service-payments listening on ${service.url} (${where})`,
  `  dashboard:  ${dashboard}${demo?.dashboardUser ? `   log in as ${demo.dashboardUser.email} ${demo.dashboardUser.password ? `/ ${demo.dashboardUser.password}` : 'with the password you chose'}` : ''}`,
  `  contract:   ${service.url}/v1/openapi.json`,
  `  reference:  ${service.url}/docs`,
];
if (demo) {
  lines.push(
    `  demo sandbox API key: ${demo.apiKey}`,
    `  sandbox gateways: ${(service.services.sandbox?.running() ?? []).map(({ gateway, url }) => `${gateway} ${url}`).join(', ')}`,
    `  try: curl -H "Authorization: Bearer ${demo.apiKey}" ${service.url}/v1/auth/test`,
    `  a Pix: curl -H "Authorization: Bearer ${demo.apiKey}" ${service.url}/v1/payments -d '{"amount":1990,"method":"pix","externalId":"order-1","customer":{"name":"Maria Silva","email":"maria@example.com","document":"123.456.789-09"}}'`,
    `  then pay it: ${cli} sim pay <pay_id>   (or with the Pay button on its page in the dashboard)`,
  );
}
if (service.services.mailer.local) {
  const demo = isEmbeddedDemo(config);
  lines.push(`  mail (invitations, password resets): no SMTP_URL, written to ${resolve(config.dataDir, OUTBOX_FOLDER)}${demo ? ' (also under Organizations in the dashboard, for operators)' : ''}`);
  // Decision 22: outside the embedded demo nobody may be handed an invitation's link (nor read another person's reset
  // link in the dashboard), so inviting waits for a mail server.
  if (!demo) lines.push('  invitations: refused until SMTP_URL is set (only the embedded demo shows their links)');
}
lines.push(`  operator CLI: ${cli} --help   (admin token: ${config.adminToken ? 'ADMIN_TOKEN of this service' : resolve(config.dataDir, ADMIN_TOKEN_FILE)})`, '');
// As for the log lines (runtime/logger.ts): a stdout reader that went away (`npm start | head -3`) costs the banner, not the service.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
if (logFormat === 'json') {
  // A log reader (a pipe, a container) gets one structured line and every stdout line stays JSON; secrets stay in their files.
  // Written whatever LOG_LEVEL says, as the banner is.
  log.child({}, { level: 'info' }).info(
    {
      url: service.url,
      database: where,
      dashboard,
      contract: `${service.url}/v1/openapi.json`,
      reference: `${service.url}/docs`,
      operatorCli: cli,
      sandboxGateways: Object.fromEntries((service.services.sandbox?.running() ?? []).map(({ gateway, url }) => [gateway, url])),
      files: {
        adminToken: config.adminToken ? null : resolve(config.dataDir, ADMIN_TOKEN_FILE),
        demoApiKey: demo ? resolve(config.dataDir, DEMO_KEY_FILE) : null,
        demoDashboardPassword: demo?.dashboardUser?.password ? resolve(config.dataDir, DEMO_PASSWORD_FILE) : null,
        mailOutbox: service.services.mailer.local ? resolve(config.dataDir, OUTBOX_FOLDER) : null,
      },
    },
    'listening',
  );
} else {
  // The log lines of the start (migrations) are written first, so the banner comes last.
  await new Promise<void>((done) => log.flush(() => done()));
  process.stdout.write(lines.join('\n') + '\n');
}

/** The operator CLI invocation that reaches this service: its URL when not the CLI's default, and where the token is. */
function operatorCommand(url: string): string {
  const quote = (value: string) => (/^[\w./:@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);
  const prefix = config.adminToken
    ? 'PAYMENTS_ADMIN_TOKEN="$ADMIN_TOKEN" '
    : resolve(config.dataDir) === resolve('data')
      ? ''
      : `DATA_DIR=${quote(resolve(config.dataDir))} `;
  return `${prefix}npx payments-admin${url === 'http://127.0.0.1:3000' ? '' : ` --url ${url}`}`;
}
