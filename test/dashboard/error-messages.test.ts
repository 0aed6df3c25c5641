/**
 * What the dashboard says when a call fails (dashboard/src/api/errors.ts):
 * the database out of reach (503 `service_unavailable`) reads as a passing
 * unavailability to try again, not as a failure of what the person did, and
 * the page's queries ask again by themselves, as for a dropped connection.
 */
import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../dashboard/src/api/failure';
import { isTemporary, messageOf, TEMPORARILY_UNAVAILABLE } from '../../dashboard/src/api/errors';

describe('the dashboard on a failed call', () => {
  it('says "temporarily unavailable, try again" for a 503 service_unavailable, and asks again', () => {
    const unavailable = new ApiFailure(503, 'service_unavailable', 'The service is temporarily unavailable (its database cannot be reached); try again in a moment.');
    expect(messageOf(unavailable)).toBe(TEMPORARILY_UNAVAILABLE);
    expect(TEMPORARILY_UNAVAILABLE).toMatch(/temporarily unavailable; try again/);
    expect(isTemporary(unavailable)).toBe(true);
    expect(isTemporary(new Error('wrapped', { cause: unavailable }))).toBe(true);
  });

  it('keeps the service\'s own words for a refusal, and does not ask again', () => {
    const refused = new ApiFailure(409, 'conflict', 'It already exists or clashes with what exists.');
    expect(messageOf(refused)).toBe('It already exists or clashes with what exists.');
    expect(isTemporary(refused)).toBe(false);
    expect(isTemporary(new ApiFailure(500, 'internal_error', 'Internal error.'))).toBe(false);
    expect(isTemporary(new ApiFailure(0, 'network', 'The service could not be reached.'))).toBe(true);
  });
});
