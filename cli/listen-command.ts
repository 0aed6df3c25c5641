/**
 * `webhook listen --forward-to <url> [--env <env_id>] [--api-key sk_test_…]
 * [--new-secret]`: receives a sandbox environment's events as they are
 * committed (the service's listen stream, http/listen-stream.ts) and forwards
 * each one to a receiver on this machine, with the headers and signature a
 * registered endpoint gets, signed with a secret printed at start. No public
 * URL, no endpoint to register, no service restart.
 *
 * With the admin token the secret is made for the session. With a sandbox API
 * key (a merchant's developer, no operator needed) it is kept for the key on
 * this machine (listen-secrets.ts), so the receiver is configured once.
 */
import type { Command } from 'commander';
import { API_KEY_OPTION_HELP, devCredential, type DevCredential } from './credentials';
import { listenSession, localUrl } from './listen-session';
import { examples, type CliTools } from './tools';

interface GlobalOptions {
  url: string;
  token?: string;
  json?: boolean;
}

/** The service, and the admin token or API key (credentials.ts). */
function connection(program: Command, apiKey: string | undefined): { baseUrl: string; credential: DevCredential; json: boolean } {
  const opts = program.opts<GlobalOptions>();
  const credential = devCredential({ token: opts.token, apiKey }, process.env);
  return { baseUrl: opts.url.replace(/\/$/, ''), credential, json: Boolean(opts.json) };
}

export function registerListenCommand(program: Command, _tools: CliTools): void {
  const webhook = program.commands.find((command) => command.name() === 'webhook') ?? program.command('webhook');
  const listen = webhook
    .command('listen')
    .description('forward a sandbox environment’s events, as they are committed, to a local URL, signed with a secret printed at start (Ctrl-C stops)')
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://127.0.0.1:4000/hooks', localUrl)
    .option('--env <environmentId>', 'sandbox environment (default: the only one, as in the embedded demo; with --api-key: the key\'s own)')
    .option('--api-key <key>', API_KEY_OPTION_HELP)
    .option('--new-secret', 'with an API key: make a new signing secret and keep it instead of the one kept for the key')
    .action(async (o: { forwardTo: string; env?: string; apiKey?: string; newSecret?: boolean }) => {
      const { baseUrl, credential, json } = connection(program, o.apiKey);
      await listenSession({ baseUrl, credential, json, forwardTo: o.forwardTo, environmentId: o.env, newSecret: o.newSecret });
    });
  listen.addHelpText(
    'after',
    `
Signing secret: with the admin token, a new one each session. With an API key
(--api-key or PAYMENTS_API_KEY, e.g. a merchant's developer without an
operator), one per key on this machine, kept in
$XDG_CONFIG_HOME/payments-admin/listen-secrets/ (default ~/.config/…), mode
0600, and used again by every session of that key, so the receiver is set up
once; --new-secret replaces it.`,
  );
  examples(
    listen,
    'webhook listen --forward-to http://127.0.0.1:4000/hooks',
    'webhook listen --forward-to http://127.0.0.1:4000/hooks --env env_…',
    'webhook listen --forward-to http://127.0.0.1:4000/hooks --api-key sk_test_…   # or PAYMENTS_API_KEY; same secret every time',
    'webhook listen --forward-to http://127.0.0.1:4000/hooks --api-key sk_test_… --new-secret',
    "--json webhook listen --forward-to http://127.0.0.1:4000/hooks | jq -c 'select(.type)'",
  );
}
