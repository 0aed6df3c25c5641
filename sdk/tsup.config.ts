/**
 * The SDK's build: ESM (`.js`) and CommonJS (`.cjs`) of both entries, each
 * with its declarations (`.d.ts`, `.d.cts`). Shared code is split into one
 * chunk per format, so both entries hand out the same classes (an
 * `instanceof` across `@service-payments/sdk` and `/webcrypto` holds).
 * Unminified and without source maps: the output reads like the source.
 */
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', webcrypto: 'src/webcrypto.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  splitting: true,
  sourcemap: false,
  minify: false,
  clean: true,
  // Node 20.3 (the engines floor) and today's edge runtimes run ES2022.
  target: 'es2022',
  platform: 'node',
  // Keep `node:crypto` as written: edge runtimes with Node compatibility only know the prefixed names.
  removeNodeProtocol: false,
  tsconfig: 'tsconfig.build.json',
  outDir: 'dist',
});
