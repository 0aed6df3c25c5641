/** Runs the example webhook receiver from the environment: WEBHOOK_SECRET, PORT. */
import { pathToFileURL } from 'node:url';
import { startWebhookReceiver } from './server.js';

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const secret = env.WEBHOOK_SECRET;
  if (!secret) throw new Error('Set WEBHOOK_SECRET to the endpoint signing secret (whsec_…) shown when the endpoint was created.');
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
