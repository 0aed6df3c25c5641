/** A routed create's first steps: the trace it starts from, and whether the request fits a fallback gateway. */
import { gatewayFailureIn } from '../gateway-calls';
import { isRefusal } from '../refusal';
import type { RoutingPlan } from './directory';
import type { RoutingTrace } from './trace';

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
    const issues = refusedIssues(error);
    if (issues) return `the request does not fit this gateway${issues.length > 0 ? `: ${issues.map((issue) => issue.message).join('; ')}` : ''}`;
    throw error;
  }
}

/** What a check refused in the request: our own validation (400), or the gateway refusing a read as asked; null for anything else. */
function refusedIssues(error: unknown): readonly { message: string }[] | null {
  const failure = gatewayFailureIn(error);
  if (failure?.kind === 'refused') return failure.issues;
  if (isRefusal(error) && error.code === 'invalid_input') return (error.details.issues as { message: string }[] | undefined) ?? [];
  return null;
}
