/**
 * Whether a failed create may move on to the rule's next gateway (decision
 * 21): only when the gateway tried was unavailable — connection refused or
 * reset, no answer in time, or a 5xx. Anything else (a refusal, a 4xx the
 * adapter did not expect, a 2xx it could not read) is not an outage: the
 * create answers it as before, and no other gateway is tried.
 */
import { GatewayFailure } from '../../gateways';
import { Refusal } from '../refusal';

/**
 * - `refused_connection`: nothing reached the gateway, so nothing exists there.
 * - `reset`: the connection broke mid-call; the gateway may have acted.
 * - `timeout`: no answer in time; the gateway may have acted.
 * - `server_error`: a 5xx; the gateway may have acted before failing.
 */
export type Unavailability = 'refused_connection' | 'reset' | 'timeout' | 'server_error';

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const REFUSED_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** The outage a gateway call's error shows, or null when it is not one (see above). */
export function unavailability(error: unknown): Unavailability | null {
  const failure = error instanceof Refusal ? error.cause : error;
  if (!(failure instanceof GatewayFailure) || failure.kind !== 'unavailable') return null;
  // The HTTP client (gateways/http-client.ts) keeps the transport error as the cause; an HTTP answer has none.
  if (failure.cause !== undefined) return transportFailure(failure.cause);
  // gateways/responses.ts words a status it does not expect "… answered <status>".
  const status = /answered (\d{3})$/.exec(failure.message)?.[1];
  return status && Number(status) >= 500 ? 'server_error' : null;
}

function transportFailure(cause: unknown): Unavailability {
  for (let error: unknown = cause, depth = 0; error && depth < 5; error = (error as { cause?: unknown }).cause, depth++) {
    const { name, code } = error as { name?: string; code?: string };
    if (name === 'TimeoutError' || name === 'AbortError' || (code && TIMEOUT_CODES.has(code))) return 'timeout';
    if (code && REFUSED_CODES.has(code)) return 'refused_connection';
  }
  return 'reset';
}
