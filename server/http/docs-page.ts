/**
 * The API reference at /docs: Scalar's standalone bundle, served from this
 * service's own node_modules, rendering GET /v1/openapi.json. Nothing is
 * fetched from anywhere else (the service works without internet), and the
 * page's Content-Security-Policy keeps the browser to this origin. A bar
 * above it links the guides (guides.ts, /docs/guides), the site's other half.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type express from 'express';
import { guidesSite } from './guides';
import { GUIDES_PATH } from './guides-render';

export const DOCS_PATH = '/docs';

const BUNDLE = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Payments API reference</title>
    <style>
      .docs-bar { font: 14px/1.4 system-ui, sans-serif; padding: 6px 16px; border-bottom: 1px solid #d0d7de; display: flex; gap: 16px; }
      .docs-bar a { color: #0b5cad; }
    </style>
  </head>
  <body>
    <nav class="docs-bar" aria-label="Documentation"><strong>Payments docs</strong><a href="${GUIDES_PATH}">Guides</a><span>API reference</span></nav>
    <div id="app"></div>
    <script src="${DOCS_PATH}/scalar.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;

// Options of Scalar that would reach out: its web fonts, telemetry and the AI agent; the
// document comes from this origin.
const INIT = `Scalar.createApiReference('#app', ${JSON.stringify({
  url: '/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: 'never',
})});
`;

const POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // The bundle injects its styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
].join('; ');

/** The page, its init script and the bundle (read once, on first request); the guides beside them. */
export function docsPage(app: express.Express): void {
  guidesSite(app);
  let bundle: Buffer | undefined;
  app.get(DOCS_PATH, (_req, res) => void res.set('Content-Security-Policy', POLICY).type('html').send(PAGE));
  app.get(`${DOCS_PATH}/init.js`, (_req, res) => void res.type('application/javascript').send(INIT));
  app.get(`${DOCS_PATH}/scalar.js`, (_req, res) => {
    bundle ??= readFileSync(BUNDLE);
    res.set('Cache-Control', 'public, max-age=3600').type('application/javascript').send(bundle);
  });
}
