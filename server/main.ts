/** `npm start`: one service process, with the demo tenant on the embedded default. */
import './runtime/require-node';
import { ensureDemoTenant } from './admin/demo-seed';
import { ConfigError, loadConfig, type Config } from './config';
import { createLogger } from './runtime/logger';
import { startService } from './runtime/service';

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

const log = createLogger(config.logLevel);
const service = await startService(config, log);
const demo = config.seedDemo ? await ensureDemoTenant(service.services) : null;

const where = config.database.kind === 'postgresql' ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.database.dataDir ?? 'memory'}`;
const lines = [
  '',
  `service-payments listening on ${service.url} (${where})`,
  `  contract:   ${service.url}/v1/openapi.json`,
];
if (demo) {
  lines.push(
    `  demo sandbox API key: ${demo.apiKey}`,
    `  try: curl -H "Authorization: Bearer ${demo.apiKey}" ${service.url}/v1/auth/test`,
  );
}
lines.push(`  operator CLI: npm run admin -- --help   (admin token in ${config.adminToken ? 'ADMIN_TOKEN' : `${config.dataDir}/admin-token`})`, '');
process.stdout.write(lines.join('\n') + '\n');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
