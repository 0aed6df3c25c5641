/** Turns whatever a failed call threw into what the person reads. */
import { ApiFailure } from './client';

export function failureOf(error: unknown): ApiFailure | null {
  if (error instanceof ApiFailure) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof ApiFailure) return cause;
  return null;
}

/** The service's own message, with the fields it refused (`amount: must be positive`). */
export function messageOf(error: unknown): string {
  const failure = failureOf(error);
  if (!failure) return error instanceof Error && error.message ? error.message : 'Something went wrong.';
  const details = failure.issues
    .filter((issue) => issue.message)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    // The operator API may already have joined the first problem to its message ("… amount: must be at most 2500…").
    .filter((detail) => !failure.message.includes(detail));
  return details.length ? `${failure.message} ${details.join('; ')}` : failure.message;
}

export const statusOf = (error: unknown): number | null => failureOf(error)?.status ?? null;
