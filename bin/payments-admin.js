#!/usr/bin/env node
// The operator CLI. Runs the compiled build (dist/, made by `npm run build` or `npm start`) when it is there
// and not older than the sources; in a checkout being edited (or with no build) it runs the TypeScript
// through tsx, so it never runs stale code. Resolved from this package wherever it is called from.
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Its dependencies need Node >= 22.17: on an older system Node (`node bin/payments-admin.js`) say so instead of crashing.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 17)) {
  process.stderr.write(
    `payments-admin needs Node >= 22.17 but runs on ${process.versions.node}; run it as \`npx payments-admin\` or \`npm run -s admin --\`, which use the Node installed in node_modules/.bin.\n`,
  );
  process.exit(1);
}

const root = fileURLToPath(new URL('..', import.meta.url));

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : entry.name.endsWith('.ts') ? statSync(path).mtimeMs : 0);
  }
  return newest;
}

function compiledIsCurrent() {
  try {
    const built = statSync(`${root}dist/.built`).mtimeMs;
    statSync(`${root}dist/cli/main.js`);
    try {
      return built >= Math.max(newestSource(`${root}server`), newestSource(`${root}cli`));
    } catch {
      return true; // no sources shipped: the build is all there is
    }
  } catch {
    return false;
  }
}

if (compiledIsCurrent()) {
  await import('../dist/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
}
