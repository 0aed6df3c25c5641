/**
 * One call of a gateway to register a resource, its outcome as data: the
 * caller (the routing loop, a refund's rule) decides what each outcome does
 * to the row, without reading errors itself.
 *
 * - `registered`: the gateway made it; its answer (`snapshot`) is to commit.
 * - `refused`: the gateway refused the request as asked: nothing exists there.
 * - `unavailable`: the gateway could not be reached or failed (the failure's
 *   `transport` and `status` say how); `outage` is set when that may be an
 *   outage another gateway could stand in for (routing/availability.ts).
 * - `unsupported`: the gateway has no such thing: nothing was made there.
 * - `failed`: anything else (a gateway that lost what it was asked about, an
 *   error of our own): nothing is known of what the gateway did.
 *
 * Every outcome but `registered` carries the error as thrown, for the
 * caller to throw on when it gives up: the edges translate it.
 */
import type { GatewayAdapter, GatewayFailure } from '../../gateways';
import { gatewayFailureIn } from '../gateway-calls';
import { unavailability, type Unavailability } from '../routing/availability';

export type GatewayAttempt<S> = { ms: number } & (
  | { kind: 'registered'; snapshot: S }
  | { kind: 'refused' | 'unsupported'; failure: GatewayFailure; error: unknown }
  | { kind: 'unavailable'; failure: GatewayFailure; outage: Unavailability | null; error: unknown }
  | { kind: 'failed'; failure: GatewayFailure | null; error: unknown }
);

/** Calls the gateway once and says what came of it; `ms` is how long the call took. */
export async function attemptRegistration<R, S>(call: (adapter: GatewayAdapter, request: R) => Promise<S>, adapter: GatewayAdapter, request: R): Promise<GatewayAttempt<S>> {
  const started = performance.now();
  try {
    const snapshot = await call(adapter, request);
    return { kind: 'registered', snapshot, ms: performance.now() - started };
  } catch (error) {
    const ms = performance.now() - started;
    const failure = gatewayFailureIn(error);
    if (failure?.kind === 'refused' || failure?.kind === 'unsupported') return { kind: failure.kind, failure, error, ms };
    if (failure?.kind === 'unavailable') return { kind: 'unavailable', failure, outage: unavailability(failure), error, ms };
    return { kind: 'failed', failure, error, ms };
  }
}
