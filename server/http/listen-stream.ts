/**
 * `GET /internal/webhooks/listen?environmentId=env_…[&after=<sequence>]`:
 * the committed events of one sandbox environment as Server-Sent Events, for
 * `payments-admin webhook listen`, which forwards them to a receiver on the
 * developer's machine. Nothing is stored and no endpoint is registered: the
 * receiver needs no public URL and the service no restart.
 *
 * The stream reads the `events` table from its own cursor, not the
 * dispatcher's state, so events committed on any node arrive; which events
 * are committed and visible after its position, and when a sequence it passed
 * without seeing may still turn up, is domain/events-feed/committed.ts, the
 * rule GET /v1/events follows too.
 *
 * Without `after`, the stream starts with the events committed after it
 * connected: nothing earlier is replayed. `after` resumes from an event's
 * sequence (the SSE `id` of each event), which the CLI uses to reconnect.
 * Either way, the recent sequences below the start that are not visible yet
 * (transactions still committing as the stream opens) are awaited like any
 * other gap, so an event committed after `ready` is never skipped. A gap of
 * an earlier connection that was filled while the CLI was disconnected is
 * not sent again.
 *
 * Two credentials open it: the platform's admin token (any sandbox
 * environment, named or the only one), or a merchant's sandbox API key
 * (`sk_test_…`, its own environment only; domain/sandbox-keys.ts), whose
 * streams are limited per key and end when the key is revoked.
 *
 * Frames: one `ready` (`{"environmentId","after"}`), then per event
 * `id: <sequence>`, `event: webhook` and `data: <envelope>`, where the
 * envelope is the exact bytes a registered endpoint receives as its body.
 */
import type { Server } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { answer, operatorAnswerOf, operatorErrorBody } from '../operator/operator-answers';
import { sendOperatorAnswer } from './operator-errors';
import { sandboxEnvironment } from '../domain/sandbox';
import { authenticateSandboxKey, countSandboxKeyUse, ownEnvironment, presentsApiKey, type SandboxKeyCaller } from '../domain/sandbox-keys';
import { adminTokenCheck } from './admin-token';
import type { Services } from '../services';
import { LISTEN_READY, LISTEN_WEBHOOK, type ListenReady } from '../contract/listen-protocol';
import { CommittedCursor } from '../domain/events-feed/committed';

/** How often the stream looks for newly committed events. */
const POLL_MS = 200;
/** A comment line this often keeps idle proxies and the client's read open, and notices a client that went away. */
const KEEPALIVE_MS = 15_000;
const BATCH = 200;
/**
 * Streams one sandbox API key may hold open on one node: each polls the
 * database, and a merchant's developer needs one or two (a terminal per
 * receiver), not hundreds. The admin token is not limited.
 */
const MAX_SESSIONS_PER_KEY = 5;
/** How often an open stream of an API key checks the key is still accepted (a revocation ends the stream within this). */
const KEY_RECHECK_MS = 5_000;


export function webhookListenStream(services: Services, adminToken: string): RequestHandler {
  const tokenMatches = adminTokenCheck(adminToken);
  /** Open streams per API key on this node. */
  const sessionsOfKey = new Map<string, number>();
  return async (req: Request, res: Response) => {
    const authorization = req.headers.authorization;
    // Two credentials: the platform's admin token (any sandbox), or a merchant's sandbox API key (its own environment).
    // The token is compared first, so whatever an operator chose as ADMIN_TOKEN keeps working as before.
    const asOperator = tokenMatches(authorization);
    const withKey = !asOperator && presentsApiKey(authorization);
    if (!asOperator && !withKey) return sendOperatorAnswer(res, answer('unauthorized'));
    // A shutting-down service stops listening at once: streams end then, or they would hold the shutdown until its timeout.
    const server = (req.socket as { server?: Server }).server;
    if (!(server?.listening ?? true)) {
      // 503 as while starting: the CLI waits for the service to come back, quietly, and resumes.
      res.status(503).set({ connection: 'close', 'retry-after': '1' }).type('application/json').send(operatorErrorBody(answer('unavailable', 'The service is stopping.')));
      return;
    }

    let environmentId = typeof req.query.environmentId === 'string' && req.query.environmentId ? req.query.environmentId : undefined;
    let keyCaller: SandboxKeyCaller | null = null;
    if (withKey) {
      try {
        keyCaller = await authenticateSandboxKey(services.db.fork(), services, authorization);
        environmentId = ownEnvironment(keyCaller, environmentId);
        await countSandboxKeyUse(services, keyCaller, 'default');
      } catch (error) {
        const reply = operatorAnswerOf(error);
        if (reply) return sendOperatorAnswer(res, reply);
        throw error;
      }
    }
    const after = req.query.after;
    if (after !== undefined && (typeof after !== 'string' || !/^\d{1,15}$/.test(after))) {
      return sendOperatorAnswer(res, answer('invalid_input', 'after: expected the sequence of an event (a non-negative integer).'));
    }

    const em = services.db.fork();
    let environment;
    try {
      environment = await sandboxEnvironment(em, environmentId);
    } catch (error) {
      const reply = operatorAnswerOf(error);
      if (reply) return sendOperatorAnswer(res, reply);
      throw error;
    }
    const cursor = await CommittedCursor.open(services.db.fork(), after !== undefined ? Number(after) : undefined, Date.now());
    const start = cursor.after;
    // Counted and taken with no wait in between, so concurrent openings cannot all pass the check.
    const apiKeyId = keyCaller?.apiKeyId;
    if (apiKeyId) {
      const held = sessionsOfKey.get(apiKeyId) ?? 0;
      if (held >= MAX_SESSIONS_PER_KEY) {
        return sendOperatorAnswer(res, { ...answer('rate_limited', `This API key already has ${held} webhook listen sessions open here; stop one first.`), retryAfter: 5 });
      }
      sessionsOfKey.set(apiKeyId, held + 1);
    }

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      'x-accel-buffering': 'no',
    });
    const ready: ListenReady = { environmentId: environment.id, after: start };
    res.write(`event: ${LISTEN_READY}\ndata: ${JSON.stringify(ready)}\n\n`);
    services.log.info({ environmentId: environment.id, after: start, apiKeyId }, 'webhook listen session opened');

    let open = true;
    res.on('close', () => {
      open = false;
    });
    const live = () => open && !res.writableEnded && (server?.listening ?? true);

    let lastWrite = Date.now();
    let keyCheckedAt = Date.now();
    try {
      while (live()) {
        // A key revoked (or its environment's access otherwise withdrawn) while streaming: the stream ends, and the CLI's reconnection is refused.
        if (withKey && Date.now() - keyCheckedAt >= KEY_RECHECK_MS) {
          const stillAccepted = await authenticateSandboxKey(services.db.fork(), services, authorization).then(
            () => true,
            (error: unknown) => {
              if (operatorAnswerOf(error)) return false;
              throw error;
            },
          );
          if (!stillAccepted) {
            services.log.info({ environmentId: environment.id, apiKeyId }, 'webhook listen session ended: its API key is no longer accepted');
            break;
          }
          keyCheckedAt = Date.now();
        }
        const frames = await poll(services, environment.id, cursor);
        for (const frame of frames) {
          if (!live()) break;
          await write(res, frame);
          lastWrite = Date.now();
        }
        if (frames.length === 0 && Date.now() - lastWrite >= KEEPALIVE_MS) {
          await write(res, ': keep-alive\n\n');
          lastWrite = Date.now();
        }
        if (frames.length < BATCH) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } catch (error) {
      if (live()) services.log.error({ err: error, environmentId: environment.id }, 'webhook listen session failed');
    } finally {
      if (apiKeyId) {
        const left = (sessionsOfKey.get(apiKeyId) ?? 1) - 1;
        if (left > 0) sessionsOfKey.set(apiKeyId, left);
        else sessionsOfKey.delete(apiKeyId);
      }
      services.log.info({ environmentId: environment.id, after: cursor.after }, 'webhook listen session closed');
      // At shutdown the connection goes too: kept alive, the client's reconnection would arrive on it and hold the shutdown.
      const shuttingDown = !(server?.listening ?? true);
      if (!res.writableEnded) res.end(() => shuttingDown && req.socket.destroy());
      else if (shuttingDown) req.socket.destroy();
    }
  };
}

/** The frames of this environment's events that became visible since the last poll, in sequence order. */
async function poll(services: Services, environmentId: string, cursor: CommittedCursor): Promise<string[]> {
  const events = await cursor.next(services.db.fork(), environmentId, BATCH, Date.now());
  // The body a registered endpoint receives (webhooks/attempt.ts), byte for byte.
  return events.map((event) => `id: ${event.sequence}\nevent: ${LISTEN_WEBHOOK}\ndata: ${JSON.stringify(event.envelope())}\n\n`);
}

/** Writes a frame, waiting while the client reads slowly (a receiver that takes its time) rather than buffering without bound. */
function write(res: Response, frame: string): Promise<void> {
  if (res.write(frame)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
