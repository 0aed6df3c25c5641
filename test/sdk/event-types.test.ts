/**
 * The SDK's event types as a merchant's strict project compiles them: the
 * catch-up loop of sdk/README.md, read from the README itself, compiles under
 * `strict` and `exactOptionalPropertyTypes` with a cursor read from storage
 * (`string | null`, or `string | undefined`), with listed events going to the
 * same `WebhookEvent` handler as verified deliveries, and with `nextCursor`
 * passed back to `events.list` as it is.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
const work = mkdtempSync(join(tmpdir(), 'sdk-event-types-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The fenced TypeScript block of the README's "Catch up after downtime" step, unindented. */
function readmeCatchUpLoop(): string {
  const readme = readFileSync(join(repo, 'sdk/README.md'), 'utf8');
  const step = readme.slice(readme.indexOf('**Catch up after downtime.**'));
  const block = /```ts\n([\s\S]*?)\n\s*```/.exec(step)?.[1];
  if (!block) throw new Error('sdk/README.md has no ts block after "Catch up after downtime"');
  return block.replace(/^ {3}/gm, '');
}

/** What the README's snippet leaves to the reader: a client, a store of the last id, the delivery handler. */
const prelude = (storedCursor: string) => `import { PaymentsClient, verifyWebhookDelivery, type WebhookEvent } from '@service-payments/sdk';

declare const client: PaymentsClient;
declare const db: { lastEventId(): Promise<${storedCursor}>; saveLastEventId(id: string): Promise<void> };
/** The handler deliveries go to: it takes what the verifier returns. */
async function handle(event: WebhookEvent): Promise<void> {
  if (event.type === 'refund.succeeded') console.log(event.data.refundId, event.data.amount);
}
declare const delivery: Parameters<typeof verifyWebhookDelivery>[0];
await handle(verifyWebhookDelivery(delivery).event);

/** Paging by hand: nextCursor goes back as after, as the list gives it. */
export async function pageByHand(): Promise<void> {
  let cursor: string | null | undefined = await db.lastEventId();
  for (;;) {
    const page = await client.events.list({ after: cursor, limit: 100 });
    for (const event of page.data) await handle(event);
    if (!page.hasMore) return;
    cursor = page.nextCursor;
  }
}
`;

async function compile(name: string, source: string): Promise<string> {
  const dir = join(work, name);
  writeFileSync(join(work, `${name}.ts`), source);
  const config = {
    compilerOptions: {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      module: 'esnext',
      moduleResolution: 'bundler',
      target: 'ES2022',
      lib: ['ES2022', 'DOM'],
      types: ['node'],
      typeRoots: [join(repo, 'node_modules/@types')],
      noEmit: true,
      skipLibCheck: true,
      // The SDK's source (what the repository's tsconfig resolves it to), checked under these options too.
      paths: { '@service-payments/sdk': [join(repo, 'sdk/src/index.ts')] },
    },
    files: [join(work, `${name}.ts`)],
  };
  writeFileSync(`${dir}.tsconfig.json`, JSON.stringify(config));
  try {
    await run(process.execPath, [tsc, '-p', `${dir}.tsconfig.json`], { cwd: work });
    return '';
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `${stdout ?? ''}${stderr ?? ''}`.trim();
  }
}

describe('SDK event types under strict and exactOptionalPropertyTypes', () => {
  it('the README catch-up loop compiles with a stored cursor that may be null, or undefined', async () => {
    const loop = readmeCatchUpLoop();
    expect(loop).toContain('client.events.iterate(');
    for (const [name, storedCursor] of [
      ['cursor-null', 'string | null'],
      ['cursor-undefined', 'string | undefined'],
    ] as const) {
      expect(await compile(name, `${prelude(storedCursor)}\n${loop}\n`), name).toBe('');
    }
  }, 60_000);

  it('still refuses what is wrong: a listed event is not any object, and after is not a number', async () => {
    const wrong = `${prelude('string | null')}
for await (const event of client.events.iterate({})) {
  const unknownType: 'payment.teleported' = event.type;
  void unknownType;
}
await client.events.list({ after: 42 });
`;
    const errors = await compile('wrong', wrong);
    expect(errors).toMatch(/is not assignable to type '"payment\.teleported"'/);
    expect(errors).toMatch(/Type 'number' is not assignable to type 'string'/);
    expect(errors.split('\n').filter((line) => /^\S+\.ts\(/.test(line) && !line.startsWith('wrong.ts'))).toEqual([]);
  }, 60_000);
});
