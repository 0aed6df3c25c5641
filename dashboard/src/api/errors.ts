/** Turns whatever a failed call threw into what the person reads. */
import { ApiFailure } from './failure';

export function failureOf(error: unknown): ApiFailure | null {
  if (error instanceof ApiFailure) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof ApiFailure) return cause;
  return null;
}

/** What a person reads while the service cannot reach its database (503 `service_unavailable`): nothing is wrong with what they did. */
export const TEMPORARILY_UNAVAILABLE = 'The service is temporarily unavailable; try again in a moment.';

/** A failure that asking again shortly may cure: no answer (a dropped connection), or the service's 503. */
export const isTemporary = (error: unknown): boolean => {
  const failure = failureOf(error);
  return (failure?.status ?? 0) === 0 || failure?.code === 'service_unavailable';
};

/** The service's own message, with the fields it refused (`amount: must be positive`). */
export function messageOf(error: unknown): string {
  const failure = failureOf(error);
  if (!failure) return error instanceof Error && error.message ? error.message : 'Something went wrong.';
  if (failure.code === 'service_unavailable') return TEMPORARILY_UNAVAILABLE;
  const details = failure.issues
    .filter((issue) => issue.message)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    // The operator API may already have joined the first problem to its message ("… amount: must be at most 2500…").
    .filter((detail) => !failure.message.includes(detail));
  return details.length ? `${failure.message} ${details.join('; ')}` : failure.message;
}

export const statusOf = (error: unknown): number | null => failureOf(error)?.status ?? null;
