/**
 * The guides at /docs/guides: docs/guides/*.md rendered once, on the first
 * request (guides-render.ts), and kept in memory with their brotli and gzip
 * copies, so nothing is compressed per request; the browser gets the best
 * copy its Accept-Encoding allows (the dashboard's negotiation). The pages
 * load nothing but their stylesheet from this origin: no script may run,
 * nothing is fetched from elsewhere (the service works without internet).
 * Without docs/guides/ (an install that left it out) the pages answer 503
 * saying so, and the rest of the service is unharmed.
 */
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type express from 'express';
import type { Request, Response } from 'express';
import { acceptedEncodings, packageRoot } from './dashboard-static';
import { GUIDES_CSS, GUIDES_PATH, escapeHtml, readGuides, renderSite } from './guides-render';

export const GUIDES_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Body {
  type: string;
  plain: Buffer;
  br: Buffer;
  gzip: Buffer;
}

function compressed(type: string, text: string): Body {
  const plain = Buffer.from(text);
  return {
    type,
    plain,
    br: brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length } }),
    gzip: gzipSync(plain, { level: 9 }),
  };
}

/** The site's files by path: built on first use from the guides folder. */
function loadSite(dir: string): Map<string, Body> {
  const site = new Map<string, Body>();
  const { pages } = renderSite(readGuides(dir));
  for (const [path, html] of pages) site.set(path, compressed('html', html));
  site.set(`${GUIDES_PATH}/guides.css`, compressed('css', GUIDES_CSS));
  return site;
}

function send(req: Request, res: Response, body: Body): void {
  const encoding = acceptedEncodings(req.get('accept-encoding'))[0];
  res.vary('Accept-Encoding').set({ 'Content-Security-Policy': GUIDES_POLICY, 'Cache-Control': 'no-cache' }).type(body.type);
  if (!encoding) {
    res.send(body.plain);
    return;
  }
  res.set('Content-Encoding', encoding.name).send(encoding.name === 'br' ? body.br : body.gzip);
}

const missing = (dir: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Guides missing</title></head>
<body><main><h1>The guides are not installed</h1>
<p>This service renders its guides from <code>${escapeHtml(dir)}</code>, which it cannot read. Deploy the repository's
<code>docs/guides/</code> folder beside <code>dist/</code>. The <a href="/docs">API reference</a> does not need it.</p>
</main></body></html>
`;

export function guidesSite(app: express.Express, dir: string = join(packageRoot(), 'docs', 'guides')): void {
  let site: Map<string, Body> | undefined;
  const handler = (req: Request, res: Response, next: express.NextFunction) => {
    try {
      site ??= loadSite(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      res.status(503).set('Content-Security-Policy', GUIDES_POLICY).type('html').send(missing(dir));
      return;
    }
    // `/docs/guides/` and `/docs/guides/webhooks/` name the same pages as without the slash.
    const path = req.path.length > GUIDES_PATH.length && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    const body = site.get(path);
    if (!body) {
      next();
      return;
    }
    send(req, res, body);
  };
  app.get([GUIDES_PATH, `${GUIDES_PATH}/{*page}`], handler);
}
