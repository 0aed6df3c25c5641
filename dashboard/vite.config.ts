/**
 * The dashboard's build: a single-page app served by the service under
 * /dashboard/ (server/http/dashboard-static.ts) from dist/dashboard/.
 * `npm run build` runs it (build.mjs); `npm run dashboard:dev` serves it with
 * hot reload, proxying /internal to a service on localhost:3000.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The chart library and the parts drawing charts. */
const CHARTS = /node_modules[\\/](recharts|@mantine[\\/]charts|d3-|victory-vendor)|[\\/]src[\\/]parts[\\/]\w*Chart\w*\.tsx?$/;
/** What logged-in pages have in common: the app's own building blocks and the libraries they use (pages stay apart). */
const LOGGED_IN_SHARED = /[\\/]dashboard[\\/]src[\\/](api|ui|shell|parts)[\\/]|[\\/]server[\\/]|node_modules[\\/](@mantine|@floating-ui|@tanstack|@trpc|zod)[\\/]/;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** What compresses: scripts, styles, the page, images as text, data. Source maps are for developers' tools, fetched rarely. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt)$/;

/**
 * A Vite plugin that writes, next to every text file of the build, a brotli
 * (`.br`, quality 11) and a gzip (`.gz`, level 9) copy, so the service sends
 * them as they are (server/http/dashboard-static.ts) instead of compressing on
 * each request or not at all. The highest levels are slow (seconds for the
 * whole build, mostly brotli on the chart library) but run once per build.
 *
 * A copy that would not be smaller than the file (tiny chunks) is not written:
 * the service then sends the plain file.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async writeBundle(_options, bundle) {
      const files = Object.keys(bundle).filter((name) => COMPRESSIBLE.test(name));
      await Promise.all(
        files.map(async (name) => {
          const path = join(outDir, name);
          const plain = await readFile(path);
          const [br, gz] = await Promise.all([
            brotli(plain, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                [constants.BROTLI_PARAM_SIZE_HINT]: plain.length,
              },
            }),
            gzipped(plain, { level: constants.Z_BEST_COMPRESSION }),
          ]);
          if (br.length < plain.length) await writeFile(`${path}.br`, br);
          if (gz.length < plain.length) await writeFile(`${path}.gz`, gz);
        }),
      );
    },
  };
}

export default defineConfig({
  root: here('.'),
  base: '/dashboard/',
  plugins: [react(), precompress()],
  // The service's tsconfig resolves the SDK's source through this condition; the dashboard imports only shared schemas.
  resolve: { conditions: ['@service-payments/source'] },
  build: {
    outDir: here('../dist/dashboard'),
    emptyOutDir: true,
    sourcemap: true,
    // No inline script or data: module preload: the page's CSP allows scripts from this origin only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      output: {
        // Few requests (each costs a round trip on a phone network; HTTP/1.1 fetches six at a time), and the
        // log-in page only what it needs: React; what the log-in page uses of the UI kit, the API client and the app; the
        // rest every logged-in page shares (the layout, the kit's other parts, schemas); the charts, for home only.
        // A higher priority takes a module first; each group also takes what its modules import.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 4 },
            { name: 'login', tags: ['$initial'], priority: 3 },
            { name: 'app', test: (id) => LOGGED_IN_SHARED.test(id) && !CHARTS.test(id), priority: 2 },
            { name: 'charts', test: CHARTS, priority: 1 },
          ],
        },
      },
    },
  },
  server: { proxy: { '/internal': 'http://localhost:3000' } },
});
