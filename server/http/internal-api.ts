/**
 * The internal operator API over HTTP. Three kinds of caller:
 * - `Authorization: Bearer <admin token>`: the operator (the CLI), checked
 *   without touching the database;
 * - `Authorization: Bearer sk_test_…`: a merchant's developer with a sandbox
 *   API key (`payments-admin trigger --api-key`, the merchant CLI `payments`), for the procedures of
 *   KEY_PROCEDURES only, in the key's own environment
 *   (domain/sandbox-keys.ts);
 * - the dashboard: the `dashboard_session` cookie (HttpOnly, SameSite=Strict,
 *   Secure over HTTPS) names a session, and every call but `auth.session`,
 *   `auth.login` and `auth.acceptInvitation` (which answer without one) must
 *   carry the session's CSRF token in `x-csrf-token`. A cookie call whose
 *   `Origin` is another site's is refused whatever it carries.
 *
 * It answers its errors in the contract's shape, like /v1: exactly
 * `{"error": "<code>", "message": "…"}` (plus `issues` for `invalid_input`),
 * never tRPC's own error envelope, a stack or a validator's internals:
 *
 * | status | error            | when                                                        |
 * |--------|------------------|-------------------------------------------------------------|
 * | 400    | `invalid_json`   | the body or the `input` query parameter is not JSON         |
 * | 400    | `invalid_input`  | input refused (`issues` of `{path, message}`), too large or too deep |
 * | 401    | `unauthorized`   | missing or wrong admin token, no live session, wrong log-in (checked before the body is read) |
 * | 403    | `forbidden`      | the caller's role does not allow it; a missing or wrong CSRF token; a cross-site call |
 * | 403    | `second_factor_required` | the organization requires a second factor this session has not proven |
 * | 404    | `not_found`      | an unknown procedure, or a record that does not exist       |
 * | 409    | `conflict`       | it already exists or clashes with what exists               |
 * | 412    | `unavailable`    | it cannot be done now (for example no sandbox simulators)   |
 * | 429    | `rate_limited`   | too many failed log-ins (`Retry-After` says when to try again) |
 * | 500    | `internal_error` | an unexpected failure (details in the log, with the request id) |
 * | 503    | `service_unavailable` | the database cannot be reached right now (`Retry-After` says when to try again) |
 *
 * The codes and their translation are operator/operator-answers.ts; the
 * operator CLI's client (cli/client.ts) reads these answers.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { csrfMatches, resolveSession } from '../domain/people/sessions';
import { DEVICE_COOKIE } from '../domain/people/trusted-devices';
import { OPERATOR, type Actor } from '../operator/access';
import { JSON_MAX_DEPTH } from '../contract/limits';
import { adminTokenCheck } from './admin-token';
import { authenticateSandboxKey, presentsApiKey, type SandboxKeyCaller } from '../domain/sandbox-keys';
import { replaceErrorBody } from './error-bodies';
import { checkRawJson, jsonNestedDeeperThan, NOT_UTF8_MESSAGE, tooDeepMessage } from './json-body';
import type { Services } from '../services';
import { answer, OPERATOR_ERRORS, operatorAnswerOf, operatorErrorBody, type OperatorAnswer } from '../operator/operator-answers';
import { sendOperatorAnswer as send } from './operator-errors';
import { operatorContext, type WebCaller } from '../operator/procedure';
import { operatorRouter } from '../operator/router';

/**
 * tRPC's adapter writes its own error envelope after telling `onError`; the
 * answer chosen there replaces it on its way out.
 */
const operatorErrorBodies = (req: Request, res: Response) =>
  replaceErrorBody(res, () => {
    const reply = req.operatorAnswer;
    if (!reply) return undefined;
    return { status: OPERATOR_ERRORS[reply.code].status, body: operatorErrorBody(reply), headers: reply.retryAfter ? { 'retry-after': String(reply.retryAfter) } : undefined };
  });

declare global {
  namespace Express {
    interface Request {
      /** The operator error this request ends with, sent instead of tRPC's envelope. */
      operatorAnswer?: OperatorAnswer;
      /** Who calls, decided before the body is read. */
      operatorCaller?: { actor: Actor; web: WebCaller; sandboxKey?: SandboxKeyCaller };
    }
  }
}

export function operatorHttpHandler(services: Services, adminToken: string): RequestHandler {
  const tokenMatches = adminTokenCheck(adminToken);
  const readBody = express.text({
    type: () => true,
    limit: services.config.maxBodyBytes,
    // On the raw bytes, before anything decodes or parses them.
    verify: checkRawJson,
  });
  const trpc = createExpressMiddleware({
    router: operatorRouter,
    allowBatching: false,
    createContext: ({ req }) => {
      const caller = (req as Request).operatorCaller;
      return operatorContext(services, req.log, caller?.actor ?? NOBODY, caller?.web ?? null, caller?.sandboxKey ?? null);
    },
    onError: ({ error, req, path }) => {
      const reply = operatorAnswerOf(error);
      (req as Request).operatorAnswer = reply ?? answer('internal_error');
      if (!reply) ((req as Request).log ?? services.log).error({ err: error.cause ?? error, path }, 'operator procedure failed');
    },
  });

  const authenticate = dashboardCaller(services);

  return async (req, res, next) => {
    const header = req.headers.authorization;
    // The admin token is compared first, so whatever an operator chose as ADMIN_TOKEN keeps working as before.
    if (header !== undefined && !tokenMatches(header) && presentsApiKey(header)) {
      try {
        const refusal = await sandboxKeyCaller(services, req, res);
        if (refusal) return send(res, refusal);
      } catch (error) {
        return send(res, failedBeforeTheCall(services, req, error, 'could not authenticate the API key'));
      }
    } else if (header !== undefined || !hasCookie(req, SESSION_COOKIE) && !OPEN_PROCEDURES.has(procedureOf(req))) {
      if (!tokenMatches(header)) return send(res, answer('unauthorized'));
      req.operatorCaller = { actor: OPERATOR, web: webCaller(services, req, res, null) };
    } else {
      try {
        const refusal = await authenticate(req, res);
        if (refusal) return send(res, refusal);
      } catch (error) {
        return send(res, failedBeforeTheCall(services, req, error, 'could not read the dashboard session'));
      }
    }

    // A query's input travels in the URL: bounded the same way as a body.
    const query = req.url.indexOf('?');
    const input = query >= 0 ? new URLSearchParams(req.url.slice(query + 1)).get('input') : null;
    if (input !== null && jsonNestedDeeperThan(input)) return send(res, answer('invalid_input', undefined, [{ path: [], message: tooDeepMessage(JSON_MAX_DEPTH) }]));

    operatorErrorBodies(req, res);
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

/** Finding out who calls failed: the database out of reach is a 503 (the request's line says so); anything else is ours, logged with its stack. */
function failedBeforeTheCall(services: Services, req: Request, error: unknown, what: string): OperatorAnswer {
  const reply = operatorAnswerOf(error);
  if (reply?.code === 'service_unavailable') return reply;
  (req.log ?? services.log).error({ err: error }, what);
  return answer('internal_error');
}

/** The dashboard's session cookie. */
export const SESSION_COOKIE = 'dashboard_session';
/** The header a cookie-authenticated call carries its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
/** What answers without a session: how one begins (and, for `auth.session`, whether one exists). */
const OPEN_PROCEDURES = new Set(['auth.login', 'auth.session', 'auth.invitation', 'auth.acceptInvitation', 'auth.requestPasswordReset', 'auth.resetPassword', 'auth.verifySecondFactor', 'auth.unlockSecondFactorCodes']);

/** What a sandbox API key may call here: the development tools' (webhook listen has its own route, listen-stream.ts), and the outcomes of its own sandbox payments and refunds (`payments sim …`). */
const KEY_PROCEDURES = new Set(['simulators.trigger', 'simulators.payment', 'simulators.refund']);

/**
 * A call with a sandbox API key: only KEY_PROCEDURES, and only once the key
 * is authenticated (as on /v1) and found to be a sandbox one. Its actor is a
 * member of no organization; the procedure reads the key's environment from
 * the context. Sets `req.operatorCaller`, or answers why the call is refused.
 */
async function sandboxKeyCaller(services: Services, req: Request, res: Response): Promise<OperatorAnswer | null> {
  if (!KEY_PROCEDURES.has(procedureOf(req))) {
    return answer('forbidden', 'An API key can only trigger events and listen to them here, and simulate outcomes of its own sandbox payments and refunds; every other operator call takes the admin token or a dashboard session.');
  }
  try {
    const sandboxKey = await authenticateSandboxKey(services.db.fork(), services, req.headers.authorization);
    req.operatorCaller = { actor: NOBODY, web: webCaller(services, req, res, null), sandboxKey };
    return null;
  } catch (error) {
    const reply = operatorAnswerOf(error);
    if (!reply) throw error;
    return reply;
  }
}

/** Nobody logged in: a member of no organization, so every scoped read is empty and every record not found. */
const NOBODY: Actor = { kind: 'member', userId: '', roles: new Map() };

/** The procedure a call names: the path inside /internal/trpc (`/auth.login` → `auth.login`). */
function procedureOf(req: Request): string {
  try {
    return decodeURIComponent(req.path.slice(1));
  } catch {
    return req.path.slice(1); // malformed escapes name no procedure; tRPC answers not_found
  }
}

function cookieOf(req: Request, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null;
  }
  return null;
}
const hasCookie = (req: Request, name: string) => cookieOf(req, name) !== null;

/** Secure cookies whenever the browser talks HTTPS: this hop, or the public address behind a TLS-terminating proxy. */
const overHttps = (services: Services, req: Request) => req.secure || services.publicUrl().startsWith('https:');

function webCaller(services: Services, req: Request, res: Response, session: WebCaller['session']): WebCaller {
  const options = { httpOnly: true, secure: overHttps(services, req), sameSite: 'strict' as const, path: '/' };
  return {
    session,
    address: req.ip ?? req.socket.remoteAddress ?? 'unknown',
    userAgent: req.headers['user-agent'] ?? null,
    deviceToken: cookieOf(req, DEVICE_COOKIE),
    setSessionCookie: (token, maxAgeMs) => void res.cookie(SESSION_COOKIE, token, { ...options, maxAge: maxAgeMs }),
    setDeviceCookie: (token, maxAgeMs) => void res.cookie(DEVICE_COOKIE, token, { ...options, maxAge: maxAgeMs }),
    clearSessionCookie: () => void res.clearCookie(SESSION_COOKIE, options),
  };
}

/** The origins this service is reached at: its public address, and the one this request came to. */
function sameOrigin(services: Services, req: Request, origin: string): boolean {
  const own = [new URL(services.publicUrl()).origin];
  if (req.headers.host) own.push(`${req.protocol}://${req.headers.host}`);
  return own.includes(origin);
}

/**
 * A call without the admin token: the session its cookie names, the CSRF
 * token it must carry, and its Origin. Sets `req.operatorCaller`, or answers
 * why the call is refused.
 */
export function dashboardCaller(services: Services, options: { csrf: boolean } = { csrf: true }) {
  return async (req: Request, res: Response): Promise<OperatorAnswer | null> => {
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(services, req, origin)) return answer('forbidden', 'Cross-site call refused: the dashboard calls from its own origin.');
    const procedure = procedureOf(req);
    const open = OPEN_PROCEDURES.has(procedure);
    const token = cookieOf(req, SESSION_COOKIE);
    const signedIn = token ? await resolveSession(services.db.fork(), token, services.now()) : null;
    if (!signedIn || !token) {
      if (!open) return answer('unauthorized', 'Your dashboard session has ended; log in again.');
      const web = webCaller(services, req, res, null);
      if (token) web.clearSessionCookie();
      req.operatorCaller = { actor: NOBODY, web };
      return null;
    }
    // A plain GET download (list-export.ts) changes nothing and carries no header: the SameSite=Strict cookie and the Origin check guard it.
    if (!open && options.csrf) {
      const presented = req.headers[CSRF_HEADER];
      if (typeof presented !== 'string' || !csrfMatches(token, presented)) return answer('forbidden', `Missing or wrong CSRF token: send the session's token in the ${CSRF_HEADER} header.`);
    }
    const { user, roles, sessionId, secondFactorMissing, secondFactorProven } = signedIn;
    const actor: Actor = user.platformOperator
      ? { kind: 'operator', userId: user.id, secondFactorMissing, secondFactorProven }
      : { kind: 'member', userId: user.id, roles, secondFactorMissing };
    req.operatorCaller = { actor, web: webCaller(services, req, res, { id: sessionId, userId: user.id, token }) };
    return null;
  };
}
