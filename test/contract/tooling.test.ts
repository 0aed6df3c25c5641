/**
 * The contract as the usual OpenAPI tools see it: the document served by a
 * running service, fetched over HTTP, passes Redocly's recommended rules
 * (redocly.yaml) and Spectral's OpenAPI ruleset (.spectral.yaml) with no
 * error or warning, and openapi-typescript's output compiles under
 * `tsc --strict`. Each tool runs as its own process on this Node, offline.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const bin = (path: string) => join(ROOT, 'node_modules', path);

let service: TestService;
let dir: string;
let documentPath: string;

/** Runs a tool's JavaScript entry on the Node running the tests (npm's Node 24), never the system one. */
async function tool(entry: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin(entry), ...args], {
      cwd: ROOT,
      timeout: 50_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    return { code: 0, output: `${stdout}\n${stderr}` };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}\n${failed.stderr ?? ''}` };
  }
}

beforeAll(async () => {
  service = await startTestService();
  dir = mkdtempSync(join(tmpdir(), 'openapi-tools-'));
  const served = await call(service.url, 'GET', '/v1/openapi.json');
  expect(served.status).toBe(200);
  documentPath = join(dir, 'openapi.json');
  writeFileSync(documentPath, served.text);
});
afterAll(async () => {
  await service?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the served OpenAPI document and the usual tools', () => {
  it('passes Redocly lint (recommended rules, redocly.yaml) without errors or warnings', async () => {
    const result = await tool('@redocly/cli/bin/cli.js', ['lint', documentPath, '--config', join(ROOT, 'redocly.yaml'), '--format', 'stylish']);
    expect(result.output).not.toMatch(/\b(error|warning)\b/i);
    expect(result.code, result.output).toBe(0);
  }, 60_000);

  it('passes Spectral lint (spectral:oas, .spectral.yaml) without errors or warnings', async () => {
    const result = await tool('@stoplight/spectral-cli/dist/index.js', ['lint', documentPath, '--ruleset', join(ROOT, '.spectral.yaml'), '--fail-severity', 'warn']);
    expect(result.output).toContain('No results with a severity of');
    expect(result.code, result.output).toBe(0);
  }, 60_000);

  it('gives openapi-typescript output that compiles under tsc --strict', async () => {
    const typesPath = join(dir, 'api.ts');
    const generated = await tool('openapi-typescript/bin/cli.js', [documentPath, '--output', typesPath]);
    expect(generated.code, generated.output).toBe(0);
    // The generated types in use, so a type that collapsed to `any`/`unknown` where it matters shows up as an error.
    writeFileSync(
      join(dir, 'use.ts'),
      `import type { components, paths } from './api';
type Payment = components['schemas']['Payment'];
type Create = components['schemas']['CreatePaymentRequest'];
const body: Create = { amount: 1990, currency: 'BRL', method: 'pix', externalId: 'order-1', customer: { name: 'M', email: 'm@example.com', document: '12345678909' }, metadata: { a: { b: [1, 'x', null] } } };
const status: Payment['status'] = 'paid';
type Created = paths['/v1/payments']['post']['responses'][201]['content']['application/json'];
const check: Created extends Payment ? true : false = true;
export { body, status, check };
`,
    );
    const compiled = await tool('typescript/bin/tsc', ['--strict', '--noEmit', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', join(dir, 'api.ts'), join(dir, 'use.ts')]);
    expect(compiled.output.trim()).toBe('');
    expect(compiled.code).toBe(0);
  }, 60_000);
});
