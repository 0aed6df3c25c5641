/**
 * Reads /v1 request bodies as JSON before the tRPC adapter sees them:
 * - any non-empty body is parsed as JSON whatever its Content-Type (curl -d
 *   sends form encoding by default; the contract only speaks JSON);
 * - an empty POST (the `cancel` and `sync` routes, or no body at all) is `{}`,
 *   so it works without a Content-Type header;
 * - a body nested deeper than JSON_MAX_DEPTH is refused before JSON.parse
 *   (a cheap scan of the raw text), so nothing after it ever recurses over a
 *   hostile structure thousands of levels deep;
 * - a parse failure is not answered here: it is stashed and raised after
 *   authentication and rate limiting (the contract's order of checks).
 */
import express, { type RequestHandler } from 'express';
import { ApiError } from '../contract/errors';
import { JSON_MAX_DEPTH } from '../contract/limits';

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * True when JSON text opens more than `maxDepth` objects or arrays inside one
 * another. One pass over the bytes, brackets inside strings ignored; it does
 * not validate the JSON (the parser does that next), it only bounds the depth
 * the parser and everything after it will meet.
 */
export function jsonNestedDeeperThan(raw: Buffer | string, maxDepth: number = JSON_MAX_DEPTH): boolean {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

export const tooDeepMessage = (maxDepth: number = JSON_MAX_DEPTH) => `request body must not nest objects or arrays more than ${maxDepth} levels deep`;

/** Thrown from the parser's `verify` hook: a body nested too deep, or not UTF-8. */
class RawBodyRefused extends Error {
  constructor(readonly type: 'entity.too.deep' | 'entity.not.utf8') {
    super(type);
  }
}

export const NOT_UTF8_MESSAGE = 'The request body must be JSON encoded as UTF-8.';

/**
 * The parser's `verify` hook, on the raw bytes before anything decodes them.
 * JSON travels as UTF-8; a body announced in another charset (UTF-16, UTF-32)
 * is refused, because the depth scan reads UTF-8 bytes and would misjudge it.
 */
export function checkRawJson(_req: unknown, _res: unknown, raw: Buffer, encoding: string): void {
  if (!/^utf-?8$/i.test(encoding)) throw new RawBodyRefused('entity.not.utf8');
  if (jsonNestedDeeperThan(raw)) throw new RawBodyRefused('entity.too.deep');
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({
    limit: limitBytes,
    type: () => true,
    strict: true,
    // Runs on the raw bytes before JSON.parse: a structure too deep never gets parsed.
    verify: checkRawJson,
  });
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
            : err.type === 'entity.too.deep'
              ? new ApiError('invalid_input', { issues: [{ path: [], message: tooDeepMessage() }] })
              : err.type === 'entity.not.utf8'
                ? new ApiError('invalid_json', undefined, NOT_UTF8_MESSAGE)
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
