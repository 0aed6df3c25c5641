/**
 * Runs one gateway simulator as its own process, for local work outside the
 * embedded demo (e.g. against a service on PostgreSQL):
 *   npm run simulator -- gateway_a --port 4101 --credentials @creds.json --webhook-url http://127.0.0.1:3000/webhooks/gateway_a/gwa_…
 * Its control interface is HTTP under /_sim (see CONTROL.md).
 */
import '../../runtime/require-node';
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { GATEWAY_NAMES, type GatewayName } from '../../contract/enums';
import { gatewaySimulators, type GatewaySimulator } from '../simulators';

const program = new Command('simulator')
  .argument('<gateway>', GATEWAY_NAMES.join('|'))
  .option('--port <port>', 'listening port (default: a free one)', (v) => Number(v), 0)
  .option('--host <host>', 'listening address', '127.0.0.1')
  .requiredOption('--credentials <json|@file>', 'the credentials the simulated gateway accepts')
  .option('--webhook-url <url>', "the service's inbound webhook URL for this gateway account")
  .action(async (gateway: string, options: { port: number; host: string; credentials: string; webhookUrl?: string }) => {
    if (!(GATEWAY_NAMES as readonly string[]).includes(gateway)) throw new InvalidArgumentError(`gateway must be one of ${GATEWAY_NAMES.join(', ')}`);
    const text = options.credentials.startsWith('@') ? readFileSync(options.credentials.slice(1), 'utf8') : options.credentials;
    const start = gatewaySimulators[gateway as GatewayName] as (o: { port: number; host: string; credentials: unknown; webhookUrl?: string }) => Promise<GatewaySimulator>;
    const simulator = await start({ port: options.port, host: options.host, credentials: JSON.parse(text), webhookUrl: options.webhookUrl });
    process.stdout.write(`${gateway} simulator listening on ${simulator.url} (control: ${simulator.url}/_sim)\n`);
    const stop = () => void simulator.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

await program.parseAsync();
