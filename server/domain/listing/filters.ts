/** Conditions shared by the dashboard's lists of payments and subscriptions (their orders are sort.ts, their search search.ts). */
import type { Position } from './cursor';

/** `%`, `_` and `\` in a searched text are literal characters, not LIKE wildcards. */
export const likePrefix = (text: string): string => `${text.replace(/[\\%_]/g, '\\$&')}%`;

export interface CreatedRange {
  createdFrom?: string;
  createdTo?: string;
}

/** Created at or after `createdFrom` and strictly before `createdTo`. */
export function createdBetween(range: CreatedRange): { createdAt?: { $gte?: Date; $lt?: Date } } {
  if (!range.createdFrom && !range.createdTo) return {};
  return {
    createdAt: {
      ...(range.createdFrom ? { $gte: new Date(range.createdFrom) } : {}),
      ...(range.createdTo ? { $lt: new Date(range.createdTo) } : {}),
    },
  };
}

export const NEWEST_FIRST = { createdAt: 'desc', id: 'desc' } as const;

export const createdPosition = (row: { createdAt: Date; id: string }): Position => ({ key: row.createdAt.toISOString(), id: row.id });
