/**
 * Where the core hears a gateway. The gateway layer fails with its own
 * GatewayFailure (refused / unavailable / unsupported / missing, with how
 * the connection broke or the status answered); the domain decides on that
 * failure as it is, and this file is the one place that says what each
 * means to the merchant (`refusalOf`), called by the edges (/v1's
 * http/error-translation.ts, the operator API's operator/operator-answers.ts,
 * the sandbox's triggers) when a failure reaches them. It also lists, per
 * operation, what a call can answer with, for the use cases' declarations.
 */
import type { GatewayAdapter } from '../gateways';
import { GatewayFailure } from '../gateways';
import { observeGatewayCall, type GatewayCallOutcome } from '../observability/metrics';
import { tracing } from '../observability/trace-seam';
import { raises } from './raises';
import { Refusal } from './refusal';

export const GATEWAY_CALLS = {
  /** A 422-style refusal mapped onto the request, the method missing at that gateway, or the gateway failing. */
  createPayment: raises(['invalid_input', 'method_not_supported', 'gateway_error']),
  /** `missing_gateway_ref` when the gateway no longer knows the reference. */
  getPayment: raises(['missing_gateway_ref', 'gateway_error']),
  /** `not_implemented` where the gateway has no payment cancel. */
  cancelPayment: raises(['not_implemented', 'gateway_error']),
  createSubscription: raises(['invalid_input', 'gateway_error']),
  /** `missing_gateway_ref` when the gateway no longer knows the reference. */
  getSubscription: raises(['missing_gateway_ref', 'gateway_error']),
  getPlan: raises(['gateway_error']),
  cancelSubscription: raises(['gateway_error']),
  /** A refusal becomes a failed refund (refunds/registration.ts), never an error; `not_implemented` where the gateway cannot refund this amount. */
  createRefund: raises(['not_implemented', 'gateway_error']),
  /** `missing_gateway_ref` when the gateway no longer knows the refund. */
  getRefund: raises(['missing_gateway_ref', 'gateway_error']),
} as const;

/**
 * A registration the domain leaves unfinished for a retry (no gateway of the rule fits or answers, the lease was
 * taken over, the wait for another request ran out): an unavailable failure of its gateway, 502 at the edge.
 */
export const UNFINISHED_REGISTRATION = raises(['gateway_error']);

/** What a gateway failure is to the merchant, at the edge. The failure stays as the cause, for the log. */
export function refusalOf(failure: GatewayFailure): Refusal {
  const refusal = translate(failure);
  refusal.cause = failure;
  return refusal;
}

function translate({ kind, provider, issues, unsupported }: GatewayFailure): Refusal {
  if (kind === 'refused') return new Refusal('invalid_input', { issues: [...issues] });
  // The reference no longer leads anywhere: like having none, a conflict that retrying cannot settle.
  if (kind === 'missing') return new Refusal('missing_gateway_ref', {}, `${provider} no longer knows this resource's gatewayRef; retrying will not help. Operators see it among the resources the gateway lost.`);
  if (kind === 'unsupported' && unsupported) {
    return 'method' in unsupported
      ? new Refusal('method_not_supported', { provider, method: unsupported.method })
      : new Refusal('not_implemented', { action: unsupported.action, provider });
  }
  return new Refusal('gateway_error', { provider });
}

/** The gateway's failure an error is, or null: what the core decides on (its kind, transport, status, retryable). */
export const gatewayFailureIn = (error: unknown): GatewayFailure | null => (error instanceof GatewayFailure ? error : null);

/** True when the gateway refused the request as asked: nothing of it exists there. */
export const refusedByTheGateway = (error: unknown): boolean => gatewayFailureIn(error)?.kind === 'refused';

/** True when the gateway answered that it does not know the resource asked for. */
export const lostByTheGateway = (error: unknown): boolean => gatewayFailureIn(error)?.kind === 'missing';

/** The adapter as the core uses it: every call counted and timed; a failure stays the gateway's GatewayFailure. */
export function observedGatewayCalls(adapter: GatewayAdapter): GatewayAdapter {
  return new Proxy(adapter, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || key === 'close') return value;
      return async (...args: unknown[]) => {
        // Every call of every adapter passes here: the one place that counts and times them (gateway_calls_total),
        // and, with tracing on, one span around the call's HTTP requests.
        const started = performance.now();
        let outcome: GatewayCallOutcome = 'error';
        try {
          const answer = await tracing.inSpan(`gateway ${target.name} ${String(key)}`, { 'gateway.name': target.name, 'gateway.operation': String(key) }, () =>
            (value as (...args: unknown[]) => Promise<unknown>).apply(target, args),
          );
          outcome = 'ok';
          return answer;
        } catch (error) {
          if (error instanceof GatewayFailure) outcome = error.kind;
          throw error;
        } finally {
          observeGatewayCall(target.name, String(key), outcome, (performance.now() - started) / 1000);
        }
      };
    },
  });
}
