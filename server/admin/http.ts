/**
 * The internal operator API over HTTP, behind `Authorization: Bearer <admin token>`.
 *
 * It answers its errors in the contract's shape, like /v1: exactly
 * `{"error": "<code>", "message": "…"}` (plus `issues` for `invalid_input`),
 * never tRPC's own error envelope, a stack or a validator's internals:
 *
 * | status | error            | when                                                        |
 * |--------|------------------|-------------------------------------------------------------|
 * | 400    | `invalid_json`   | the body or the `input` query parameter is not JSON         |
 * | 400    | `invalid_input`  | input refused (`issues` of `{path, message}`), too large or too deep |
 * | 401    | `unauthorized`   | missing or wrong admin token (checked before the body is read) |
 * | 403    | `forbidden`      | the caller's role does not allow it                          |
 * | 404    | `not_found`      | an unknown procedure, or a record that does not exist       |
 * | 409    | `conflict`       | it already exists or clashes with what exists               |
 * | 412    | `unavailable`    | it cannot be done now (for example no sandbox simulators)   |
 * | 500    | `internal_error` | an unexpected failure (details in the log, with the request id) |
 *
 * The operator CLI's client (admin/cli/client.ts) reads these answers.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { TRPCError } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { ZodError } from 'zod';
import { JSON_MAX_DEPTH } from '../contract/limits';
import type { ValidationIssue } from '../contract/errors';
import { OperatorError, type OperatorRefusal } from '../domain/operator-errors';
import { issuesFromZod } from '../http/error-translation';
import { checkRawJson, jsonNestedDeeperThan, NOT_UTF8_MESSAGE, tooDeepMessage } from '../http/json-body';
import type { Services } from '../services';
import { adminContext } from './procedure';
import { adminRouter } from './router';

export const OPERATOR_ERRORS = {
  invalid_json: { status: 400, message: 'Request body is not valid JSON.' },
  invalid_input: { status: 400, message: 'Request payload is invalid.' },
  unauthorized: { status: 401, message: 'Missing or wrong admin token.' },
  forbidden: { status: 403, message: 'Your role does not allow this.' },
  not_found: { status: 404, message: 'Not found.' },
  conflict: { status: 409, message: 'It already exists or clashes with what exists.' },
  unavailable: { status: 412, message: 'It cannot be done now.' },
  internal_error: { status: 500, message: 'Internal error.' },
} as const;
export type OperatorErrorCode = keyof typeof OPERATOR_ERRORS;

interface OperatorAnswer {
  code: OperatorErrorCode;
  message: string;
  issues?: ValidationIssue[];
}

const REFUSAL_CODES: Record<OperatorRefusal, OperatorErrorCode> = {
  not_found: 'not_found',
  conflict: 'conflict',
  invalid: 'invalid_input',
  unavailable: 'unavailable',
  forbidden: 'forbidden',
};

const answer = (code: OperatorErrorCode, message?: string, issues?: ValidationIssue[]): OperatorAnswer => ({
  code,
  message: message ?? OPERATOR_ERRORS[code].message,
  ...(issues ? { issues } : {}),
});

/** What a failed operator call answers; null when it is ours to fix (an internal_error, logged). */
function translate(error: TRPCError): OperatorAnswer | null {
  const cause = error.cause;
  if (cause instanceof OperatorError) {
    const code = REFUSAL_CODES[cause.refusal];
    return answer(code, cause.message, code === 'invalid_input' ? [{ path: [], message: cause.message }] : undefined);
  }
  if (cause instanceof ZodError) return answer('invalid_input', undefined, issuesFromZod(cause));
  switch (error.code) {
    case 'PARSE_ERROR':
      return answer('invalid_json');
    case 'NOT_FOUND':
    case 'METHOD_NOT_SUPPORTED':
      return answer('not_found', 'No such operator procedure for this method.');
    case 'PAYLOAD_TOO_LARGE':
      return answer('invalid_input', undefined, [{ path: [], message: 'request body is too large' }]);
    case 'INTERNAL_SERVER_ERROR':
    case 'NOT_IMPLEMENTED':
    case 'BAD_GATEWAY':
    case 'SERVICE_UNAVAILABLE':
    case 'GATEWAY_TIMEOUT':
      return null;
    default:
      // Any other malformed call (a batch, a query's input that is not an object…): said without tRPC's wording.
      return answer('invalid_input', undefined, [{ path: [], message: 'malformed operator call' }]);
  }
}

function send(res: Response, reply: OperatorAnswer): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body: Record<string, unknown> = { error: reply.code, message: reply.message };
  if (reply.issues) body.issues = reply.issues;
  res.status(OPERATOR_ERRORS[reply.code].status).type('application/json').send(JSON.stringify(body));
}

/**
 * tRPC's adapter writes its own error envelope after telling `onError`; the
 * answer chosen there replaces it on its way out: the adapter's writes are
 * dropped and the contract body is sent when it ends the response.
 */
function replaceErrorBodies(req: Request, res: Response): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((...args: unknown[]) => (req.operatorAnswer ? true : write(...args))) as typeof res.write;
  res.end = ((...args: unknown[]) => {
    const reply = req.operatorAnswer;
    if (!reply || res.headersSent) return end(...args);
    const body: Record<string, unknown> = { error: reply.code, message: reply.message };
    if (reply.issues) body.issues = reply.issues;
    res.statusCode = OPERATOR_ERRORS[reply.code].status;
    res.setHeader('content-type', 'application/json');
    res.removeHeader('content-length');
    return end(JSON.stringify(body));
  }) as typeof res.end;
}

declare global {
  namespace Express {
    interface Request {
      /** The operator error this request ends with, sent instead of tRPC's envelope. */
      operatorAnswer?: OperatorAnswer;
    }
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export function adminHttpHandler(services: Services, adminToken: string): RequestHandler {
  const expected = digest(adminToken);
  const readBody = express.text({
    type: () => true,
    limit: services.config.maxBodyBytes,
    // On the raw bytes, before anything decodes or parses them.
    verify: checkRawJson,
  });
  const trpc = createExpressMiddleware({
    router: adminRouter,
    allowBatching: false,
    createContext: ({ req }) => adminContext(services, req.log),
    onError: ({ error, req, path }) => {
      const reply = translate(error);
      (req as Request).operatorAnswer = reply ?? answer('internal_error');
      if (!reply) ((req as Request).log ?? services.log).error({ err: error.cause ?? error, path }, 'admin procedure failed');
    },
  });

  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    // Fixed-length digests keep the comparison constant-time whatever the lengths. Nothing of the request is read before.
    if (!timingSafeEqual(digest(presented), expected)) return send(res, answer('unauthorized'));

    // A query's input travels in the URL: bounded the same way as a body.
    const query = req.url.indexOf('?');
    const input = query >= 0 ? new URLSearchParams(req.url.slice(query + 1)).get('input') : null;
    if (input !== null && jsonNestedDeeperThan(input)) return send(res, answer('invalid_input', undefined, [{ path: [], message: tooDeepMessage(JSON_MAX_DEPTH) }]));

    replaceErrorBodies(req, res);
    const serve = () => {
      try {
        trpc(req, res, next);
      } catch (error) {
        next(error);
      }
    };
    if (req.method !== 'POST') return serve();
    readBody(req, res, (err?: { type?: string }) => {
      if (!err) {
        // Parsed here, not by the adapter, so a body that is not JSON is `invalid_json` rather than an unexpected failure.
        if (typeof req.body === 'string' && req.body.trim() !== '') {
          try {
            JSON.parse(req.body);
          } catch {
            return send(res, answer('invalid_json'));
          }
        }
        // The adapter refuses bodies whose Content-Type is not JSON; the body is JSON by now.
        req.headers['content-type'] = 'application/json';
        return serve();
      }
      if (err.type === 'entity.too.large') return send(res, answer('invalid_input', undefined, [{ path: [], message: `request body exceeds ${services.config.maxBodyBytes} bytes` }]));
      if (err.type === 'entity.too.deep') return send(res, answer('invalid_input', undefined, [{ path: [], message: tooDeepMessage(JSON_MAX_DEPTH) }]));
      if (err.type === 'entity.not.utf8') return send(res, answer('invalid_json', NOT_UTF8_MESSAGE));
      return send(res, answer('invalid_json', 'The request body could not be read.'));
    });
  };
}
