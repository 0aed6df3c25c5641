/** Runs the example webhook receiver from the environment: WEBHOOK_SECRETS (or WEBHOOK_SECRET), PORT, HOST. */
import { pathToFileURL } from 'node:url';
import { startWebhookReceiver } from './server.js';

/** `whsec_new,whsec_old` → both: during a rotation's overlap, a delivery signed by either is accepted. */
export function secretsFrom(env: NodeJS.ProcessEnv): string[] {
  const list = (env.WEBHOOK_SECRETS ?? env.WEBHOOK_SECRET ?? '').split(',').map((secret) => secret.trim()).filter((secret) => secret !== '');
  if (list.length === 0) {
    throw new Error('Set WEBHOOK_SECRETS to the endpoint signing secret (whsec_…) shown when the endpoint was created; during a rotation, both: whsec_new,whsec_old.');
  }
  return list;
}

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const secret = secretsFrom(env);
  const receiver = await startWebhookReceiver({ secret, port: Number(env.PORT ?? 4000), host: env.HOST ?? '127.0.0.1' });
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
