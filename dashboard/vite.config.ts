/**
 * The dashboard's build: a single-page app served by the service under
 * /dashboard/ (server/http/dashboard-static.ts) from dist/dashboard/.
 * `npm run build` runs it (build.mjs); `npm run dashboard:dev` serves it with
 * hot reload, proxying /internal to a service on localhost:3000.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/dashboard/',
  plugins: [react()],
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
        // The UI kit and React change less often than the pages: their own long-cached chunks.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/ },
            { name: 'mantine', test: /node_modules[\\/]@mantine[\\/](core|hooks|notifications|modals|form)[\\/]/ },
            { name: 'charts', test: /node_modules[\\/](recharts|@mantine[\\/]charts|d3-|victory-vendor)/ },
          ],
        },
      },
    },
  },
  server: { proxy: { '/internal': 'http://localhost:3000' } },
});
