/**
 * Runs the example webhook receiver from the environment: WEBHOOK_SECRETS (or WEBHOOK_SECRET), PORT, HOST; with
 * PAYMENTS_API_KEY and PAYMENTS_BASE_URL it also catches up on start (LAST_EVENT_FILE remembers where it was).
 */
import { pathToFileURL } from 'node:url';
import { PaymentsClient } from '@service-payments/sdk';
import { lastEventFile } from './last-event.js';
import { startWebhookReceiver, type WebhookReceiverOptions } from './server.js';

/** `whsec_new,whsec_old` → both: during a rotation's overlap, a delivery signed by either is accepted. */
export function secretsFrom(env: NodeJS.ProcessEnv): string[] {
  const list = (env.WEBHOOK_SECRETS ?? env.WEBHOOK_SECRET ?? '').split(',').map((secret) => secret.trim()).filter((secret) => secret !== '');
  if (list.length === 0) {
    throw new Error('Set WEBHOOK_SECRETS to the endpoint signing secret (whsec_…) shown when the endpoint was created; during a rotation, both: whsec_new,whsec_old.');
  }
  return list;
}

/** The catch-up of missed events when an API key is given (the key of the endpoint's environment). */
export function catchUpFrom(env: NodeJS.ProcessEnv): WebhookReceiverOptions['catchUp'] {
  if (!env.PAYMENTS_API_KEY) return undefined;
  if (!env.PAYMENTS_BASE_URL) throw new Error('Set PAYMENTS_BASE_URL (for example https://payments.example.com) with PAYMENTS_API_KEY.');
  return {
    client: new PaymentsClient({ apiKey: env.PAYMENTS_API_KEY, baseUrl: env.PAYMENTS_BASE_URL, maxRetryAfterSeconds: 60 }),
    lastEvent: lastEventFile(env.LAST_EVENT_FILE ?? 'last-event-id'),
  };
}

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const secret = secretsFrom(env);
  const catchUp = catchUpFrom(env);
  if (!catchUp) console.log('PAYMENTS_API_KEY is not set: events missed while this receiver was down will not be read back.');
  const receiver = await startWebhookReceiver({ secret, port: Number(env.PORT ?? 4000), host: env.HOST ?? '127.0.0.1', catchUp });
  console.log(`webhook receiver listening on ${receiver.url}`);
  const stop = () => void receiver.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Started directly (`npx tsx examples/webhook-receiver/main.ts`), not imported by a test.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
