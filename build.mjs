#!/usr/bin/env node
// `npm run build`: compiles the service, the operator CLI and the gateway simulator to plain JavaScript in dist/
// with esbuild (already installed for tsx; a whole build takes well under a second, so `npm start` can
// always build first). Each entry is one ES module; packages stay in node_modules, nothing is minified,
// source maps point back to the TypeScript. Type checking is `npm run typecheck` (tsc), not the build's job.
// `node build.mjs --if-stale` skips the build when dist/ is newer than every source file.
// The dashboard (dashboard/, a Vite + React app) is built by Vite into dist/dashboard/, which the service serves
// at /dashboard/; it is rebuilt only when its own sources (or the shared schemas it bundles) changed.
// `--server-only` / `--dashboard-only` build one half.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Outputs keep the paths the package's scripts and bin use: dist/main.js, dist/cli/main.js, dist/sandbox/simulator/main.js.
const ENTRIES = [
  { in: 'server/start.ts', out: 'main' },
  { in: 'cli/main.ts', out: 'cli/main' },
  { in: 'server/sandbox/simulator/main.ts', out: 'sandbox/simulator/main' },
];
const STAMP = 'dist/.built';

const DASHBOARD_STAMP = 'dist/dashboard/.built';
// The dashboard bundles its own sources and the contract (the browser-safe schemas it validates forms with, the operator API's inputs among them).
const DASHBOARD_SOURCES = ['dashboard', 'server/contract'];
const SOURCE_FILE = /\.(ts|tsx|css|html|svg)$/;

/** Newest modification time of the sources a build reads. */
function newestSource(dirs) {
  let newest = Math.max(statSync('package.json').mtimeMs, statSync('build.mjs').mtimeMs);
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE_FILE.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of dirs) walk(dir);
  return newest;
}

function isStale(stamp, dirs) {
  try {
    return statSync(stamp).mtimeMs < newestSource(dirs);
  } catch {
    return true;
  }
}

const ifStale = process.argv.includes('--if-stale');
const quiet = process.argv.includes('--quiet');
const server = !process.argv.includes('--dashboard-only') && (!ifStale || isStale(STAMP, ['server', 'cli']));
const dashboard = !process.argv.includes('--server-only') && (!ifStale || isStale(DASHBOARD_STAMP, DASHBOARD_SOURCES));

if (dashboard) {
  const started = performance.now();
  // The dashboard's build is the one slow step of a first `npm start` (tens of seconds on a small machine): said on
  // stderr even when quiet, so the wait is not silent and the service's own output (stdout) stays parseable.
  if (quiet) console.error('Building the dashboard into dist/dashboard/ (the first start, or its sources changed; about 30 s on 2 cores)…');
  // Loaded only when needed: the server build stays instant.
  const { build: viteBuild } = await import('vite');
  // Always React's production build: run from the tests, NODE_ENV is `test`, and Vite would bundle React's
  // development build (checks and warnings, 470 kB instead of 190 kB), unlike what is deployed.
  process.env.NODE_ENV = 'production';
  await viteBuild({ configFile: 'dashboard/vite.config.ts', logLevel: 'warn', mode: 'production' });
  mkdirSync('dist/dashboard', { recursive: true });
  writeFileSync(DASHBOARD_STAMP, `${new Date().toISOString()}\n`);
  console.error(`built dist/dashboard/ in ${Math.round(performance.now() - started)} ms`);
}
if (!server) process.exit(0);
const started = performance.now();
const { metafile } = await build({
  metafile: true,
  entryPoints: ENTRIES,
  outdir: 'dist',
  bundle: true,
  // Code loaded with import() (the service behind its Node version check, the sandbox behind the demo) goes to chunks of its own.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // Dependencies are loaded from node_modules at run time, as with tsx. This is also what lets OpenTelemetry's
  // instrumentations patch express, pg, undici and ioredis (server/observability/tracing.ts): a bundled copy would escape them.
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node22',
  sourcemap: true,
  logLevel: 'warning',
});
// Chunks of earlier builds (their names carry a hash) go; the current ones stay, so a CLI run reading them meanwhile is unharmed.
const current = new Set(Object.keys(metafile.outputs).map((output) => join(output)));
for (const entry of readdirSync('dist/chunks')) {
  if (!current.has(join('dist/chunks', entry))) rmSync(join('dist/chunks', entry));
}
writeFileSync(STAMP, `${new Date().toISOString()}\n`);
if (!quiet) console.error(`built dist/ in ${Math.round(performance.now() - started)} ms`);
