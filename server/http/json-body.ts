/**
 * Reads /v1 request bodies as JSON before the tRPC adapter sees them:
 * - any non-empty body is parsed as JSON whatever its Content-Type (curl -d
 *   sends form encoding by default; the contract only speaks JSON);
 * - an empty POST (the `cancel` and `sync` routes, or no body at all) is `{}`,
 *   so it works without a Content-Type header;
 * - a parse failure is not answered here: it is stashed and raised after
 *   authentication and rate limiting (decision 5).
 */
import express, { type RequestHandler } from 'express';
import { ApiError } from '../contract/errors';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: true });
  return (req, res, next) => {
    if (!METHODS_WITH_BODY.has(req.method)) return next();
    // The adapter refuses bodies whose Content-Type is not JSON; the body is JSON by now.
    const markJson = () => {
      req.headers['content-type'] = 'application/json';
      next();
    };
    const announced = Number(req.headers['content-length'] ?? 0);
    if (!req.headers['transfer-encoding'] && !(announced > 0)) {
      req.body = {};
      return markJson();
    }
    parse(req, res, (err?: { type?: string }) => {
      if (err) {
        req.body = {};
        req.bodyError =
          err.type === 'entity.too.large'
            ? new ApiError('invalid_input', { issues: [{ path: [], message: `request body exceeds ${limitBytes} bytes` }] })
            : new ApiError('invalid_json');
      } else if (req.body === undefined) {
        req.body = {};
      } else if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
        req.body = {};
        req.bodyError = new ApiError('invalid_input', { issues: [{ path: [], message: 'request body must be a JSON object' }] });
      }
      markJson();
    });
  };
}
