/** Types of seed.mjs, for the tests that seed with it. */
import type pg from 'pg';

export const SPREAD_DAYS: number;
export function seedEndpoint(client: pg.Client, environmentId: string): Promise<string>;
export function seedVolume(
  client: pg.Client,
  options: { environmentId: string; from?: number; to: number; now?: Date; endpointId?: string | null; progress?: (done: number) => void },
): Promise<void>;
