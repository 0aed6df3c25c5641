/**
 * The CLI's build: one ES module, `dist/main.js`, for Node 22 and later. Its
 * own code, the service's shared pieces it imports (the listen session, the
 * output tables, the completion script, the contract's event types) and its
 * small dependencies (commander, undici) are bundled in, so the package needs
 * nothing of the service's repository and installs in seconds; only the
 * published SDK stays a dependency.
 */
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  dts: false,
  sourcemap: false,
  minify: false,
  clean: true,
  splitting: false,
  external: ['@service-payments/sdk'],
  noExternal: [/^(?!@service-payments\/sdk)/],
  // Bundled CommonJS (undici, commander) calls require(): give the ES module one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  outDir: 'dist',
});
