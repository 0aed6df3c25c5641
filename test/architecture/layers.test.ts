/**
 * The shape of server/: no import circle anywhere, the domain and the
 * entities never reach up into the HTTP, API or webhook-delivery layers,
 * storage (db/) never reaches into the domain's rules, and
 * the service's entry point does not load the sandbox wing (server/sandbox/:
 * simulators, their faults, the demo; main.ts imports it on demand when the
 * embedded demo starts, and the domain drives it through one seam,
 * `Services.sandbox`), and the operator
 * CLI (cli/) and the dashboard are clients: of the server they load the
 * contract (the operator API's inputs in contract/operator/ among it) and
 * name the operator router only for its type.
 */
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../../server/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The import graph; `runtimeOnly` leaves out type imports (erased) and `import()` calls (loaded on demand). */
async function graph(entry: string, options: { runtimeOnly?: boolean; baseDir?: string; extensions?: string[] } = {}) {
  const result = await madge(entry, {
    baseDir: options.baseDir ?? SERVER,
    fileExtensions: options.extensions ?? ['ts'],
    detectiveOptions: { ts: { skipTypeImports: options.runtimeOnly ?? false, skipAsyncImports: options.runtimeOnly ?? false } },
  });
  return result;
}

describe('server/ layers', () => {
  it('has no import circle', async () => {
    const result = await graph(SERVER);
    expect(result.circular()).toEqual([]);
  });

  it('keeps domain/ and db/ free of imports from http/, api/ and webhooks/', async () => {
    const result = await graph(SERVER);
    const wrongWay = Object.entries(result.obj()).flatMap(([file, imports]) =>
      /^(domain|db)\//.test(file) ? imports.filter((target) => /^(http|api|webhooks)\//.test(target)).map((target) => `${file} → ${target}`) : [],
    );
    expect(wrongWay).toEqual([]);
  });

  it('keeps db/ to storage: no entity or helper there imports domain/ (the aggregates own their rules)', async () => {
    const result = await graph(SERVER);
    const upward = Object.entries(result.obj()).flatMap(([file, imports]) =>
      file.startsWith('db/') ? imports.filter((target) => target.startsWith('domain/')).map((target) => `${file} → ${target}`) : [],
    );
    expect(upward).toEqual([]);
  });

  it('keeps http/ to express glue: the procedures and their builders live in api/', async () => {
    const result = await graph(SERVER);
    const builders = Object.keys(result.obj()).filter((file) => /^http\/(trpc|procedures|context)\.ts$/.test(file));
    expect(builders).toEqual([]);
  });

  it('does not load the sandbox wing from the service entry point', async () => {
    const result = await graph(`${SERVER}main.ts`, { runtimeOnly: true });
    const loaded = Object.keys(result.obj());
    expect(loaded).toContain('runtime/service.ts');
    expect(loaded.filter((file) => file.startsWith('sandbox/'))).toEqual([]);
  });

  it('reaches the sandbox wing only through its seam: nothing outside it imports it at run time', async () => {
    const result = await graph(SERVER, { runtimeOnly: true });
    const inward = Object.entries(result.obj()).flatMap(([file, imports]) =>
      file.startsWith('sandbox/') ? [] : imports.filter((target) => target.startsWith('sandbox/')).map((target) => `${file} → ${target}`),
    );
    expect(inward).toEqual([]);
  });
});

/** What the CLI may load: its own files, the contract, and the package manifest (its version). */
const CLIENT_SIDE = /^(cli\/|server\/contract\/|package\.json$)/;

describe('the operator CLI', () => {
  it('runs on its own files and the contract alone', async () => {
    const result = await graph(`${ROOT}cli/main.ts`, { runtimeOnly: true, baseDir: ROOT });
    const loaded = Object.keys(result.obj());
    expect(loaded).toContain('cli/program.ts');
    expect(loaded.filter((file) => !CLIENT_SIDE.test(file))).toEqual([]);
  });

  it('names nothing else of the server but the operator router, for its type', async () => {
    const result = await graph(`${ROOT}cli/`, { baseDir: ROOT });
    const reached = Object.entries(result.obj()).flatMap(([file, imports]) =>
      file.startsWith('cli/') ? imports.filter((target) => !CLIENT_SIDE.test(target) && target !== 'server/operator/router.ts').map((target) => `${file} → ${target}`) : [],
    );
    expect(reached).toEqual([]);
  });
});

describe('the dashboard', () => {
  it('names nothing of the server but the contract and the operator router, for its type', async () => {
    const result = await graph(`${ROOT}dashboard/src/`, { baseDir: ROOT, extensions: ['ts', 'tsx'] });
    const files = Object.keys(result.obj());
    expect(files).toContain('dashboard/src/api/client.ts');
    const reached = Object.entries(result.obj()).flatMap(([file, imports]) =>
      file.startsWith('dashboard/')
        ? imports.filter((target) => target.startsWith('server/') && !target.startsWith('server/contract/') && target !== 'server/operator/router.ts').map((target) => `${file} → ${target}`)
        : [],
    );
    expect(reached).toEqual([]);
    // The forms validate with the operator API's own input schemas, read from the contract.
    expect(files.filter((file) => file.startsWith('server/contract/operator/'))).not.toEqual([]);
  });
});
