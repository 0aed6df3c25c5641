/**
 * `GET /livez` and `GET /readyz`, for a load balancer and Kubernetes probes
 * (outside the /v1 contract, no authentication, nothing in the answer but
 * the checks' outcomes):
 * - `/livez`: 200 while the process serves HTTP at all. A failing liveness
 *   probe restarts the process, so it checks nothing a restart cannot fix.
 * - `/readyz`: 200 when this node can serve requests: the database answers.
 *   503 while it does not, and from the moment the node starts draining
 *   (SIGTERM), so the balancer stops sending it new requests while in-flight
 *   ones finish. Redis is checked and reported (`checks.redis`) but does not
 *   make the node unready: every node shares one Redis, so an outage would
 *   take every node out of the balancer at once, while each node still
 *   serves without it (what each shared counter does then: docs/development.md,
 *   Performance). Each check has a deadline
 *   well under a second, and a check still running is waited on rather than
 *   started again, however often the probe is asked: an unreachable database
 *   is reported promptly, and hung checks never pile up on its connections.
 * `/v1/health` stays what the contract says: it touches no storage.
 */
import type { Express, Response } from 'express';

/** How long one check may take before it counts as failed. */
export const CHECK_DEADLINE_MS = 800;

export type CheckOutcome = 'ok' | 'unreachable' | 'not_configured';

export interface Readiness {
  /** True from the moment the node stops taking new work. */
  draining(): boolean;
  /** Resolves once the database answered a trivial query; rejects otherwise. */
  database(): Promise<unknown>;
  /** Same for Redis; null when the node runs without it. */
  redis: (() => Promise<unknown>) | null;
}

/** One check: single-flight (a run still in progress is shared, even past its deadline), bounded by the deadline. */
function check(run: () => Promise<unknown>): () => Promise<CheckOutcome> {
  let running: Promise<boolean> | null = null;
  return async () => {
    const current = (running ??= run().then(
      () => true,
      () => false,
    ).finally(() => {
      running = null;
    }));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), CHECK_DEADLINE_MS);
    });
    try {
      return (await Promise.race([current, deadline])) ? 'ok' : 'unreachable';
    } finally {
      clearTimeout(timer);
    }
  };
}

const answer = (res: Response, status: number, body: object) => void res.status(status).set('cache-control', 'no-store').json(body);

export function probes(app: Express, readiness: Readiness): void {
  const database = check(readiness.database);
  const redis = readiness.redis ? check(readiness.redis) : async (): Promise<CheckOutcome> => 'not_configured';

  app.get('/livez', (_req, res) => answer(res, 200, { status: 'alive' }));

  app.get('/readyz', async (_req, res) => {
    if (readiness.draining()) return answer(res, 503, { status: 'draining' });
    const [databaseOutcome, redisOutcome] = await Promise.all([database(), redis()]);
    // Redis only reported: see the comment at the top.
    const ready = databaseOutcome === 'ok';
    answer(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks: { database: databaseOutcome, redis: redisOutcome } });
  });
}
