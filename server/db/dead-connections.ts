/**
 * A pooled PostgreSQL connection that dies while checked out goes back to
 * the pool as dead, even when nobody holding it ever gives it back.
 *
 * Why: kysely 0.29 (under MikroORM 7) does not release the connection when a
 * transaction's BEGIN fails (ControlledTransactionBuilder.execute acquires,
 * then awaits BEGIN with no finally). A connection dropped between checkout
 * and BEGIN, as in a database outage, so stays checked out for ever: each
 * outage shrank the pool (10 connections) for good, until no request could
 * get one, and closing the database at shutdown waited on it for ever.
 *
 * pg emits `end` on a client whose connection is gone; pg-pool attaches
 * `release` to a client right after its `acquire` event. So at `acquire` the
 * release is wrapped (once it is attached) to be idempotent, and a client
 * whose connection ends is released with an error (pg-pool then discards it)
 * unless its holder did so within GRACE_MS, as every other path does at once.
 */
import type { Pool, PoolClient } from 'pg';

/** How long the holder of a dead connection has to release it itself. */
const GRACE_MS = 1_000;

export function releaseDeadConnections(pool: Pool): void {
  pool.on('acquire', (client: PoolClient) => {
    // pg-pool assigns client.release synchronously after this event, and hands the client over after that.
    queueMicrotask(() => {
      const release = client.release.bind(client);
      let released = false;
      let timer: NodeJS.Timeout | undefined;
      const ended = () => {
        timer = setTimeout(() => client.release(new Error('the connection to PostgreSQL ended while checked out')), GRACE_MS);
        timer.unref();
      };
      client.release = (error?: Error | boolean) => {
        if (released) return;
        released = true;
        clearTimeout(timer);
        client.off('end', ended);
        try {
          release(error);
        } catch {
          // Already given back through pg-pool's own function (a caller that kept it): nothing left to do.
        }
      };
      client.once('end', ended);
    });
  });
}
