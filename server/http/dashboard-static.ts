/**
 * The dashboard at /dashboard/: the single-page app Vite builds into
 * dist/dashboard/ (`npm run build`), served by the service itself so it needs
 * no other origin. It talks to the same /internal/trpc API as the operator
 * CLI; nothing here decides who may see what.
 *
 * - Hashed files under /dashboard/assets/ never change: cached for a year.
 * - Any other path under /dashboard/ is a page of the app (a deep link):
 *   index.html, never cached, so a new build is picked up at once.
 * - Text files are sent compressed as the build left them (`.br`, `.gz`
 *   next to each, made by dashboard/precompress.ts): brotli when the browser
 *   accepts it, else gzip, else the plain file; nothing is compressed per request.
 * - A strict Content-Security-Policy: scripts only from this origin (the
 *   build has no inline script), calls only to this origin, never framed.
 * - Without a build the pages answer 503 saying how to make one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join, normalize, sep } from 'node:path';
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
export function packageRoot(): string {
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

/** The compressed copies the build writes, best first, with their file suffix. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;
type Encoding = (typeof ENCODINGS)[number];

/**
 * The encodings an Accept-Encoding header allows, the client's preferred
 * first (its q-values; between equals, brotli before gzip). `br;q=0` refuses
 * brotli; `*` stands for any encoding not named.
 */
export function acceptedEncodings(header: string | undefined): Encoding[] {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [rawName, ...params] = part.toLowerCase().split(';');
    const name = rawName?.trim();
    if (!name) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  return ENCODINGS.filter((encoding) => weightOf(encoding.name) > 0).sort((a, b) => weightOf(b.name) - weightOf(a.name));
}

/** The compressed copy of `file` to send for this request, if the browser accepts one and the build has it. */
function compressedCopy(req: Request, file: string): Encoding | null {
  return acceptedEncodings(req.get('accept-encoding')).find((encoding) => existsSync(file + encoding.suffix)) ?? null;
}

/** The file an asset path names, if it is one that may have compressed copies (inside the folder, with an extension, not a copy itself). */
function assetFile(assets: string, path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  const file = normalize(join(assets, decoded));
  if (!file.startsWith(assets + sep) || !extname(file) || /\.(br|gz)$/.test(file)) return null;
  return file;
}

export function dashboardStatic(root: string = join(packageRoot(), 'dist', 'dashboard')): express.Router {
  const router = express.Router({ strict: true });
  const indexFile = join(root, 'index.html');
  // Read on each page load (a few kB): a rebuild while the service runs is served without a restart.
  const page = (req: Request, res: Response) => {
    secure(res);
    res.set('Cache-Control', 'no-store');
    const encoding = compressedCopy(req, indexFile);
    let body: Buffer;
    try {
      body = readFileSync(encoding ? indexFile + encoding.suffix : indexFile);
      if (encoding) res.set('Content-Encoding', encoding.name);
    } catch {
      try {
        // Between a rebuild's page and its compressed copies: the plain page.
        body = readFileSync(indexFile);
      } catch {
        res.status(503).type('html').send(NOT_BUILT);
        return;
      }
    }
    res.vary('Accept-Encoding').type('html').send(body);
  };

  router.get(DASHBOARD_PATH, (req, res) => {
    const query = req.url.indexOf('?');
    res.redirect(301, `${DASHBOARD_PATH}/${query >= 0 ? req.url.slice(query) : ''}`);
  });
  const assets = join(root, 'assets');
  router.use(`${DASHBOARD_PATH}/assets`, (req, res, next) => {
    secure(res);
    const file = assetFile(assets, req.path);
    if ((req.method === 'GET' || req.method === 'HEAD') && file) {
      res.vary('Accept-Encoding');
      const encoding = compressedCopy(req, file);
      if (encoding) {
        // The compressed copy is sent under the file's own type; express.static (send) keeps a type already set.
        res.type(extname(file)).set('Content-Encoding', encoding.name);
        req.url = `${req.path}${encoding.suffix}`;
      }
    }
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
