/**
 * The dashboard's build: a single-page app served by the service under
 * /dashboard/ (server/http/dashboard-static.ts) from dist/dashboard/.
 * `npm run build` runs it (build.mjs); `npm run dashboard:dev` serves it with
 * hot reload, proxying /internal to a service on localhost:3000.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type Rolldown } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The chart library and the parts drawing charts. */
const CHARTS = /node_modules[\\/](recharts|@mantine[\\/]charts|d3-|victory-vendor)|[\\/]src[\\/]parts[\\/]\w*Chart\w*\.tsx?$/;
/** Zod, the contract's and the operator API's input schemas, and what asks for a page's first list with them. */
const SCHEMAS = /node_modules[\\/]zod[\\/]|[\\/]server[\\/](contract|admin[\\/]inputs)[\\/]|[\\/]src[\\/]shell[\\/]first-queries\.ts$/;
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

/**
 * The page a logged-in address opens, by its path under /dashboard/ (App.tsx's routes; a page missing here only
 * loses its head start). Paths of the logged-out pages are left out: there the log-in page must stay light.
 */
const EARLY_PAGES: [RegExp, ...string[]][] = [
  [/^\/e\/[^/]+\/?$/, 'src/pages/Home.tsx'],
  [/^\/e\/[^/]+\/payments\/?$/, 'src/pages/Payments.tsx', 'src/shell/first-queries.ts'],
  [/^\/e\/[^/]+\/payments\/[^/]+\/?$/, 'src/pages/PaymentDetail.tsx'],
  [/^\/e\/[^/]+\/subscriptions\/?$/, 'src/pages/Subscriptions.tsx'],
  [/^\/e\/[^/]+\/subscriptions\/[^/]+\/?$/, 'src/pages/SubscriptionDetail.tsx'],
];
/** What every logged-in page loads first: the layout and its providers (they pull in the shared chunk). */
const EARLY_ALWAYS = ['src/shell/AppLayout.tsx', 'src/shell/SignedIn.tsx'];
const LOGGED_OUT = /^\/(login|invitation|forgot-password|reset-password|unlock-codes)?\/?$/;

/**
 * On an empty cache the layout's code (the largest chunk) used to start downloading only once React and the
 * app's entry had downloaded and run (main.tsx's preloadFor), over a second back on a phone network. This writes
 * a tiny classic script, run as soon as it arrives (async, from this origin: the CSP allows no inline script),
 * that asks for the layout's and the page's chunks with <link rel="modulepreload"> while the entry still
 * downloads. Not on the log-in page's own addresses, so that page loads nothing more.
 */
function earlyPreload(): Plugin {
  let early: string | null = null;
  let base = '/';
  return {
    name: 'early-preload',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    generateBundle: {
      order: 'pre',
      handler(_options, bundle) {
        const chunks = Object.values(bundle).filter((file): file is Rolldown.OutputChunk => file.type === 'chunk');
        // A page has its own chunk; the layout sits in the shared one (codeSplitting below).
        const named = (id: string | null | undefined, source: string) => !!id && id.replaceAll('\\', '/').endsWith(`/dashboard/${source}`);
        const chunkOf = (source: string) => chunks.find((chunk) => named(chunk.facadeModuleId, source)) ?? chunks.find((chunk) => chunk.moduleIds.some((id) => named(id, source)));
        const entry = new Set(chunks.filter((chunk) => chunk.isEntry).flatMap((chunk) => [chunk.fileName, ...chunk.imports]));
        /** A chunk and what it imports, without what the entry already loads; its styles too. */
        const filesOf = (source: string): string[] => {
          const files = new Set<string>();
          const visit = (chunk: Rolldown.OutputChunk | undefined) => {
            if (!chunk || files.has(chunk.fileName) || entry.has(chunk.fileName)) return;
            files.add(chunk.fileName);
            for (const css of chunk.viteMetadata?.importedCss ?? []) files.add(css);
            for (const name of chunk.imports) visit(chunks.find((c) => c.fileName === name));
          };
          visit(chunkOf(source));
          if (files.size === 0) this.error(`early-preload: no chunk for ${source}`);
          return [...files];
        };
        const always = [...new Set(EARLY_ALWAYS.flatMap(filesOf))];
        const pages = EARLY_PAGES.map(([path, ...sources]) => [path.source, [...new Set(sources.flatMap(filesOf))].filter((file) => !always.includes(file))]);
        const source = `// Written by dashboard/vite.config.ts (earlyPreload): the chunks of a logged-in address, asked for at once.
(function () {
  var path = location.pathname.slice(${JSON.stringify(base.replace(/\/$/, ''))}.length);
  if (${LOGGED_OUT}.test(path)) return;
  var pages = ${JSON.stringify(pages)};
  var files = ${JSON.stringify(always)};
  for (var i = 0; i < pages.length; i++) if (new RegExp(pages[i][0]).test(path)) files = files.concat(pages[i][1]);
  for (var j = 0; j < files.length; j++) {
    var link = document.createElement('link');
    var css = /\\.css$/.test(files[j]);
    link.rel = css ? 'preload' : 'modulepreload';
    if (css) link.as = 'style';
    link.crossOrigin = '';
    link.href = ${JSON.stringify(base)} + files[j];
    document.head.appendChild(link);
  }
})();
`;
        early = `assets/early-${createHash('sha256').update(source).digest('hex').slice(0, 8)}.js`;
        this.emitFile({ type: 'asset', fileName: early, source });
      },
    },
    transformIndexHtml: {
      order: 'post',
      handler() {
        if (!early) return [];
        return [{ tag: 'script', attrs: { src: `${base}${early}`, async: true }, injectTo: 'head-prepend' }];
      },
    },
  };
}

export default defineConfig({
  root: here('.'),
  base: '/dashboard/',
  plugins: [react(), earlyPreload(), precompress()],
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
        // schemas (Zod and the shared inputs); the rest every logged-in page shares (the layout, the kit's other parts);
        // the charts, for home only.
        // A higher priority takes a module first; each group also takes what its modules import.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 5 },
            { name: 'login', tags: ['$initial'], priority: 4 },
            // Zod and the shared schemas apart from the rest: what a page's first list needs to be asked for
            // (shell/first-queries.ts) arrives without waiting for the larger shared chunk.
            { name: 'schemas', test: SCHEMAS, priority: 3 },
            { name: 'app', test: (id) => LOGGED_IN_SHARED.test(id) && !CHARTS.test(id), priority: 2 },
            { name: 'charts', test: CHARTS, priority: 1 },
          ],
        },
      },
    },
  },
  server: { proxy: { '/internal': 'http://localhost:3000' } },
});
