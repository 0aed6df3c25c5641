/**
 * The dashboard at /dashboard/: the single-page app Vite builds into
 * dist/dashboard/ (`npm run build`), served by the service itself so it needs
 * no other origin. It talks to the same /internal/trpc API as the operator
 * CLI; nothing here decides who may see what.
 *
 * - Hashed files under /dashboard/assets/ never change: cached for a year.
 * - Any other path under /dashboard/ is a page of the app (a deep link):
 *   index.html, never cached, so a new build is picked up at once.
 * - A strict Content-Security-Policy: scripts only from this origin (the
 *   build has no inline script), calls only to this origin, never framed.
 * - Without a build the pages answer 503 saying how to make one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response } from 'express';

export const DASHBOARD_PATH = '/dashboard';

export const DASHBOARD_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // Mantine sets its CSS variables in a <style> element and positions popovers with style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The package's root: the nearest folder above this module with a package.json (from server/http/ or from dist/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><main><h1>The dashboard is not built</h1>
<p>This service serves the dashboard from <code>dist/dashboard/</code>, which does not exist yet.
Run <code>npm run build</code> (or start the service with <code>npm start</code>, which builds first) and reload this page.</p>
</main></body></html>
`;

/** The page's own policy; nosniff, no framing and no referrer come with every answer (security-headers.ts). */
function secure(res: Response): void {
  res.set({ 'Content-Security-Policy': DASHBOARD_POLICY, 'Cross-Origin-Opener-Policy': 'same-origin' });
}

export function dashboardStatic(root: string = join(packageRoot(), 'dist', 'dashboard')): express.Router {
  const router = express.Router({ strict: true });
  const indexFile = join(root, 'index.html');
  // Read on each page load (a few kB): a rebuild while the service runs is served without a restart.
  const page = (_req: Request, res: Response) => {
    secure(res);
    res.set('Cache-Control', 'no-store');
    let html: string;
    try {
      html = readFileSync(indexFile, 'utf8');
    } catch {
      res.status(503).type('html').send(NOT_BUILT);
      return;
    }
    res.type('html').send(html);
  };

  router.get(DASHBOARD_PATH, (req, res) => {
    const query = req.url.indexOf('?');
    res.redirect(301, `${DASHBOARD_PATH}/${query >= 0 ? req.url.slice(query) : ''}`);
  });
  router.use(`${DASHBOARD_PATH}/assets`, (_req, res, next) => {
    secure(res);
    next();
  });
  router.use(
    `${DASHBOARD_PATH}/assets`,
    express.static(join(root, 'assets'), { immutable: true, maxAge: '365d', index: false, redirect: false }),
  );
  // An asset this build does not have (an old tab after a deploy): a plain 404, never the app's page.
  router.use(`${DASHBOARD_PATH}/assets`, (_req, res) => void res.status(404).type('text/plain').send('Not found.\n'));
  router.get(`${DASHBOARD_PATH}/{*page}`, page);
  return router;
}
