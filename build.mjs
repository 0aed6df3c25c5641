#!/usr/bin/env node
// `npm run build`: compiles the service, the operator CLI and the gateway simulator to plain JavaScript in dist/
// with esbuild (already installed for tsx; a whole build takes well under a second, so `npm start` can
// always build first). Each entry is one ES module; packages stay in node_modules, nothing is minified,
// source maps point back to the TypeScript. Type checking is `npm run typecheck` (tsc), not the build's job.
// `node build.mjs --if-stale` skips the build when dist/ is newer than every source file.
import { build } from 'esbuild';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ENTRIES = ['server/main.ts', 'server/admin/cli/main.ts', 'server/gateways/simulator/main.ts'];
const STAMP = 'dist/.built';

/** Newest modification time of the sources a build reads. */
function newestSource() {
  let newest = Math.max(statSync('package.json').mtimeMs, statSync('build.mjs').mtimeMs);
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk('server');
  return newest;
}

function isStale() {
  try {
    return statSync(STAMP).mtimeMs < newestSource();
  } catch {
    return true;
  }
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);
const started = performance.now();
await build({
  entryPoints: ENTRIES,
  outbase: 'server',
  outdir: 'dist',
  bundle: true,
  // Dependencies are loaded from node_modules at run time, as with tsx.
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node22',
  sourcemap: true,
  logLevel: 'warning',
});
writeFileSync(STAMP, `${new Date().toISOString()}\n`);
if (!process.argv.includes('--quiet')) console.error(`built dist/ in ${Math.round(performance.now() - started)} ms`);
