/**
 * What a routing rule names and what routing did for one create (decision
 * 21): the rule as it stood, the candidates in the order they were to be
 * tried, each attempt with its outcome and time, and the gateway chosen.
 * Stored with the payment or subscription for operators (never in the public
 * resource). Types only, so the dashboard can import them.
 */
import type { GatewayName, RoutingMethod } from '../../contract/enums';

/** One gateway of a rule: its place in the list is its fallback order; a weight (0-100, all summing to 100) splits new creates. */
export interface RuleGateway {
  gateway: GatewayName;
  weight: number | null;
}

/** What keeps a gateway of the rule from taking a create now; `available` and `half_open` (one probe) may be tried. */
export type CandidateState = 'available' | 'open' | 'half_open' | 'disabled' | 'not_configured' | 'method_not_supported';

export interface RoutingCandidate {
  gateway: GatewayName;
  weight: number | null;
  state: CandidateState;
  reason: string;
}

/**
 * - `succeeded`: the gateway registered the create (the chosen one).
 * - `unavailable`: connection refused or reset, or a 5xx: moved on.
 * - `timeout`: no answer in time: it may exist there, so it is canceled or left to expire (`orphan`).
 * - `skipped`: not called, the gateway's breaker being open (or its probe taken by another request).
 * - `refused`: the gateway refused the request (4xx validation), or it does not fit that gateway: never a fallback reason on the gateway's own answer.
 */
export type AttemptOutcome = 'succeeded' | 'unavailable' | 'timeout' | 'skipped' | 'refused';

/** What became of whatever an abandoned attempt may have created at its gateway. */
export type OrphanFate = 'cancel_pending' | 'canceled' | 'left_to_expire' | 'nothing_found' | 'cancel_failed';

export interface RoutingAttempt {
  gateway: GatewayName;
  outcome: AttemptOutcome;
  startedAt: string;
  durationMs: number;
  detail?: string;
  /** Set on an abandoned attempt that may have created something at its gateway. */
  orphan?: OrphanFate;
  /** The orphan's reference at its gateway, once known; never used to read or change the resource. */
  orphanRef?: string;
  /**
   * When the orphan's gateway reported it paid (a notification or a reconciliation read, decision 28): money taken
   * by an attempt that was abandoned, to be returned there; the payment itself is unchanged (decision 21).
   */
  reportedPaidAt?: string;
}

export interface RoutingTrace {
  method: RoutingMethod;
  rule: RuleGateway[];
  candidates: RoutingCandidate[];
  attempts: RoutingAttempt[];
  /** The gateway that took the create; null while none has (yet). */
  chosen: GatewayName | null;
  /** Why the candidates are in this order (the weighted pick, or the rule's order). */
  reason: string;
}
