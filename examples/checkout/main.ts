/** Runs the example checkout from the environment: PAYMENTS_API_KEY, PAYMENTS_BASE_URL, PORT, HOST, PUBLIC_URL. */
import { pathToFileURL } from 'node:url';
import { startCheckout } from './server.js';

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const apiKey = env.PAYMENTS_API_KEY;
  if (!apiKey) throw new Error('Set PAYMENTS_API_KEY to a sandbox key (sk_test_…).');
  const checkout = await startCheckout({
    apiKey,
    baseUrl: env.PAYMENTS_BASE_URL ?? 'http://127.0.0.1:3000',
    port: Number(env.PORT ?? 4242),
    host: env.HOST ?? '127.0.0.1',
    ...(env.PUBLIC_URL ? { publicUrl: env.PUBLIC_URL } : {}),
  });
  console.log(`checkout listening on ${checkout.url}`);
  const stop = () => void checkout.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Started directly (`npx tsx examples/checkout/main.ts`), not imported by a test.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
