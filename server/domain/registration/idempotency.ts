import { createHash } from 'node:crypto';

/**
 * The key a gateway deduplicates creates on: stable for one externalId in one
 * environment whatever the retry, and distinct between payments,
 * subscriptions and refunds, so a create that timed out is completed instead of repeated.
 */
export const gatewayIdempotencyKey = (kind: 'payment' | 'subscription' | 'refund', environmentId: string, externalId: string): string =>
  createHash('sha256').update(`${kind}\u0000${environmentId}\u0000${externalId}`).digest('hex').slice(0, 48);

/** SHA-256 of a normalized create request, to notice a repeated externalId that arrives with a different payload. */
export const requestFingerprint = (request: unknown): string => createHash('sha256').update(JSON.stringify(request)).digest('hex');
