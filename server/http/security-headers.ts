/**
 * Headers every answer carries. Browsers must never sniff a type, frame a
 * page of this service or send its URLs to another site; over HTTPS they
 * must keep to HTTPS (HSTS, when PUBLIC_BASE_URL is https). API answers
 * (`/v1`, `/internal`) hold payments, keys and sessions: no cache, shared or
 * private, may keep them. Pages add their own Content-Security-Policy
 * (docs-page.ts, dashboard-static.ts).
 */
import type { RequestHandler } from 'express';

/** One year: the usual HSTS lifetime. Subdomains are not claimed, they may be other services. */
const HSTS = 'max-age=31536000';
const API_PATHS = /^\/(v1|internal)(\/|$)/i;

export function securityHeaders(publicUrl: () => string): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (publicUrl().startsWith('https:')) res.setHeader('Strict-Transport-Security', HSTS);
    if (API_PATHS.test(req.path)) res.setHeader('Cache-Control', 'no-store');
    next();
  };
}
