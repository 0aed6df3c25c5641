/**
 * The guides (docs/guides/*.md) against the product: every curl and
 * TypeScript sample runs against a started service with the sandbox
 * gateways (routed as the demo routes them, its simulators plugged in as the
 * demo does), and its documented answer must still be what the service says
 * (guide-samples.ts has the rules). Samples marked `no-run` are counted, so
 * none is hidden by accident. Then the site: every page answers 200,
 * compressed, under its policy, and every link between its pages resolves.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../server/contract/errors';
import { readGuides } from '../../server/http/guides-render';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { mismatches, parseDocumented, samplesOf, type Sample } from './guide-samples';

const GUIDES_DIR = resolve('docs/guides');
/**
 * The samples that cannot run in CI (`no-run`): production commands, the CLI's
 * long-running `listen`, `npm start`. Raise it only with a sample that truly
 * cannot run here.
 */
const EXPECTED_NO_RUN = 8;

const guides = readGuides(GUIDES_DIR);
const parsed = guides.map((guide) => samplesOf(guide.file, guide.markdown));
const samples = parsed.flatMap((p) => p.samples);

let world: SandboxedService;
let work: string;
let trace: string;
let curlBin: string;

beforeAll(async () => {
  world = await startSandboxedService({ routes: { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' }, simulatorsInService: true });
  work = mkdtempSync(join(tmpdir(), 'guide-samples-'));
  trace = join(work, 'trace');
  mkdirSync(join(work, 'bin'));
  mkdirSync(trace);
  // curl as the reader runs it, with each answer's headers and body also kept, so the test can read its status.
  const realCurl = spawnSync('bash', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
  curlBin = join(work, 'bin', 'curl');
  writeFileSync(
    curlBin,
    `#!/usr/bin/env bash\nset -o pipefail\nn=$(cat "$GUIDE_TRACE/count" 2>/dev/null || echo 0)\necho $((n + 1)) > "$GUIDE_TRACE/count"\n` +
      `${realCurl} -D "$GUIDE_TRACE/$n.headers" "$@" | tee "$GUIDE_TRACE/$n.body"\n`,
  );
  chmodSync(curlBin, 0o755);
  // `npx payments` as a merchant runs it, from this repository's sources (the published build is test/packages' business).
  const cli = join(work, 'bin', 'payments');
  writeFileSync(cli, `#!/usr/bin/env bash\nexec ${JSON.stringify(process.execPath)} --conditions=@service-payments/source --import tsx ${JSON.stringify(resolve('merchant-cli/src/main.ts'))} "$@"\n`);
  chmodSync(cli, 0o755);
}, 120_000);
afterAll(async () => {
  await world?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * A process run to its end without blocking: the service answering the
 * samples runs in this very process, so spawnSync would starve it.
 */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/** The calls curl made since `from`: each answer's final status and body. */
function callsSince(from: number): { status: number; body: string }[] {
  const count = Number(readFileSync(join(trace, 'count'), 'utf8'));
  const calls: { status: number; body: string }[] = [];
  for (let n = from; n < count; n++) {
    const statuses = [...readFileSync(join(trace, `${n}.headers`), 'utf8').matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].map((m) => Number(m[1]));
    calls.push({ status: statuses.at(-1) ?? 0, body: readFileSync(join(trace, `${n}.body`), 'utf8') });
  }
  return calls;
}

function where(sample: Sample): string {
  return `docs/guides/${sample.guide}:${sample.line}`;
}

/** What the sample's answer differs in from its documented one. */
function compare(sample: Sample, status: number | undefined, body: string): string[] {
  if (!sample.output) return [];
  const documented = parseDocumented(sample.output);
  const problems: string[] = [];
  if (documented.status !== undefined && documented.status !== status) problems.push(`status ${status}, the guide shows ${documented.status}`);
  if (documented.body !== undefined) {
    let actual: unknown;
    try {
      actual = JSON.parse(body);
    } catch {
      return [...problems, `the answer is not JSON: ${body.slice(0, 300)}`];
    }
    problems.push(...mismatches(documented.body, actual));
  }
  return problems;
}

async function runShell(sample: Sample, env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const countFile = join(trace, 'count');
  let before = 0;
  try {
    before = Number(readFileSync(countFile, 'utf8'));
  } catch {
    writeFileSync(countFile, '0');
  }
  const stateFile = join(work, 'state');
  // allexport: what the block assigns reaches the guide's next blocks (read back from `env -0`).
  // `npx payments` runs the CLI above: the package is not built in the workspace, and npx would look there first.
  const npx = 'npx() { if [ "$1" = payments ]; then shift; payments "$@"; else command npx "$@"; fi; }';
  const script = `set -a\nset -euo pipefail\n${npx}\n${sample.code}\nenv -0 > ${JSON.stringify(stateFile)}\n`;
  const result = await run('bash', ['-c', script], env);
  const calls = callsSince(before);
  const context = `${where(sample)}\n--- sample ---\n${sample.code}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
  expect(result.status, `the sample failed (exit ${result.status})\n${context}`).toBe(0);
  if (/\bcurl\b/.test(sample.code)) expect(calls.length, `the sample made no curl call\n${context}`).toBeGreaterThan(0);
  const last = calls.at(-1) ?? { status: undefined, body: result.stdout };
  // Every call before the last must succeed; the last answers what the guide shows, or succeeds.
  const failed = calls.slice(0, sample.output ? -1 : undefined).filter((call) => call.status >= 400);
  expect(failed, `a call of the sample failed\n${context}`).toEqual([]);
  expect(compare(sample, last.status, last.body), `the answer differs from the guide's\n${context}`).toEqual([]);
  const state: NodeJS.ProcessEnv = {};
  for (const entry of readFileSync(stateFile, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) state[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return state;
}

async function runTypeScript(sample: Sample, env: NodeJS.ProcessEnv): Promise<void> {
  // Inside the repository, so `@service-payments/sdk` resolves to the workspace's package (its sources, by their export condition).
  const dir = resolve('node_modules/.cache/guide-samples');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${sample.guide.replace(/\.md$/, '')}-${sample.line}.mts`);
  writeFileSync(file, sample.code);
  const result = await run(process.execPath, ['--conditions=@service-payments/source', '--import', 'tsx', file], env);
  const context = `${where(sample)}\n--- sample ---\n${sample.code}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
  expect(result.status, `the sample failed (exit ${result.status})\n${context}`).toBe(0);
  expect(compare(sample, undefined, result.stdout), `the output differs from the guide's\n${context}`).toEqual([]);
}

describe('the guides', () => {
  it('break none of the samples rules, and mark only the expected samples no-run', () => {
    expect(guides.length).toBeGreaterThanOrEqual(11);
    expect(parsed.flatMap((p) => p.problems)).toEqual([]);
    expect(samples.filter((s) => s.noRun).map(where)).toHaveLength(EXPECTED_NO_RUN);
    expect(samples.filter((s) => !s.noRun).length).toBeGreaterThan(10);
  });

  it('name every code of the error catalogue', () => {
    const errors = guides.find((guide) => guide.slug === 'errors-and-retries');
    expect(errors).toBeDefined();
    const missing = Object.keys(ERROR_CATALOGUE).filter((code) => !errors!.markdown.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });

  for (const guide of guides) {
    const runnable = samples.filter((s) => s.guide === guide.file && !s.noRun);
    it.skipIf(runnable.length === 0)(`${guide.file}: every sample runs and answers as shown`, async () => {
      let env: NodeJS.ProcessEnv = {
        PATH: `${join(work, 'bin')}:${process.env.PATH}`,
        HOME: work,
        GUIDE_TRACE: trace,
        PAYMENTS_URL: world.service.url,
        PAYMENTS_API_KEY: world.tenant.apiKey,
      };
      for (const sample of runnable) {
        if (sample.kind === 'sh') env = { ...env, ...(await runShell(sample, env)) };
        else await runTypeScript(sample, env);
      }
    }, 180_000);
  }
});

describe('the guides site', () => {
  it('answers every page 200, compressed, under its policy; every link between its pages resolves', async () => {
    const base = world.service.url;
    const pages = ['/docs/guides', ...guides.map((g) => `/docs/guides/${g.slug}`)];
    const seen = new Map<string, string>();
    for (const path of pages) {
      const response = await fetch(`${base}${path}`, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-encoding'), path).toBe('br');
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy'), path).toContain("default-src 'none'");
      const html = await response.text();
      expect(html, path).toContain('href="/docs"');
      seen.set(path, html);
    }
    const gzip = await fetch(`${base}/docs/guides/quick-start`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    const css = await fetch(`${base}/docs/guides/guides.css`, { headers: { 'accept-encoding': 'br' } });
    expect([css.status, css.headers.get('content-encoding'), css.headers.get('content-type')]).toEqual([200, 'br', 'text/css; charset=utf-8']);

    // Links: every href to this origin answers 200, and a #fragment names an id of its page.
    const broken: string[] = [];
    const reference = await (await fetch(`${base}/docs`)).text();
    expect(reference).toContain('href="/docs/guides"');
    for (const [path, html] of seen) {
      for (const [, href] of html.matchAll(/href="([^"]+)"/g)) {
        if (/^[a-z]+:/i.test(href!)) continue;
        const target = new URL(href!.replaceAll('&amp;', '&'), `${base}${path}`);
        const answer = await fetch(target);
        if (answer.status !== 200) broken.push(`${path} → ${href} (${answer.status})`);
        else if (target.hash && !(await answer.text()).includes(`id="${decodeURIComponent(target.hash.slice(1))}"`)) broken.push(`${path} → ${href} (no such section)`);
      }
      expect(html, `${path} links nowhere else`).not.toMatch(/<(script|img|link)[^>]+(src|href)="https?:/);
    }
    expect(broken).toEqual([]);
  });

  it('answers an unknown guide 404', async () => {
    expect((await fetch(`${world.service.url}/docs/guides/no-such-guide`)).status).toBe(404);
  });
});

// The guides folder holds only guides: a stray file would not be served.
it('holds only NN-name.md guides', () => {
  expect(readdirSync(GUIDES_DIR).filter((file) => !/^\d+-[a-z0-9-]+\.md$/.test(file))).toEqual([]);
});
