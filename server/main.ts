/** `npm start`: one service process, with the demo tenant on the embedded default. */
import './runtime/require-node';
import { ensureDemoTenant } from './admin/demo-seed';
import { ConfigError, loadConfig, type Config } from './config';
import { createLogger } from './runtime/logger';
import { startDemoGateways } from './runtime/demo-gateways';
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
if (demo) service.services.simulators = await startDemoGateways(service.services, demo.environmentId);

const where = config.database.kind === 'postgresql' ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.database.dataDir ?? 'memory'}`;
const lines = [
  '',
  `service-payments listening on ${service.url} (${where})`,
  `  contract:   ${service.url}/v1/openapi.json`,
];
if (demo) {
  lines.push(
    `  demo sandbox API key: ${demo.apiKey}`,
    `  sandbox gateways: ${Object.entries(service.services.simulators ?? {}).map(([name, sim]) => `${name} ${sim.url}`).join(', ')}`,
    `  try: curl -H "Authorization: Bearer ${demo.apiKey}" ${service.url}/v1/auth/test`,
    `  a Pix: curl -H "Authorization: Bearer ${demo.apiKey}" ${service.url}/v1/payments -d '{"amount":1990,"method":"pix","externalId":"order-1","customer":{"name":"Maria Silva","email":"maria@example.com","document":"123.456.789-09"}}'`,
    '  then pay it: npm run admin -- sim pay <pay_id>',
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
