/**
 * Whether a failed create may move on to the rule's next gateway (decision
 * 21): only when the gateway tried was unavailable — connection refused or
 * reset, no answer in time, or a 5xx. Anything else (a refusal, a 4xx the
 * adapter did not expect, a 2xx it could not read) is not an outage: the
 * create answers it as before, and no other gateway is tried.
 */
import type { GatewayFailure, TransportFailure } from '../../gateways';

/**
 * How the gateway tried was unavailable: the connection's failure
 * (gateways/errors.ts, TransportFailure), or `server_error`: a 5xx; the
 * gateway may have acted before failing.
 */
export type Unavailability = TransportFailure | 'server_error';

/** The outage a gateway call's failure shows, or null when it is not one (see above). */
export function unavailability(failure: GatewayFailure | null): Unavailability | null {
  if (failure?.kind !== 'unavailable') return null;
  if (failure.transport) return failure.transport;
  return failure.status !== undefined && failure.status >= 500 ? 'server_error' : null;
}
