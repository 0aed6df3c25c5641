/** A routed create's first steps: the trace it starts from, and whether the request fits a fallback gateway. */
import { isRefusal } from '../refusal';
import type { RoutingPlan } from '../routing';
import type { RoutingTrace } from '../routing-trace';

/** The trace as routing planned it, before any attempt. */
export const startTrace = (plan: RoutingPlan): RoutingTrace => ({
  method: plan.method,
  rule: plan.rule.map(({ gateway, weight }) => ({ gateway, weight })),
  candidates: plan.candidates.map((candidate) => ({ ...candidate })),
  attempts: [],
  chosen: null,
  reason: plan.reason,
});

/** Why the request does not fit a gateway (what the gateway requires, 400 on the first), or undefined when it does. */
export function unfitReason(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (isRefusal(error) && error.code === 'invalid_input') {
      const issues = (error.details.issues as { message: string }[] | undefined) ?? [];
      return `the request does not fit this gateway${issues.length > 0 ? `: ${issues.map((issue) => issue.message).join('; ')}` : ''}`;
    }
    throw error;
  }
}
