/** Conditions shared by the dashboard's lists of payments and subscriptions: newest first, by creation time then id. */
import { decodeCursor, type Position } from './cursor';

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

/** Rows strictly after the cursor's row in (createdAt desc, id desc) order. */
export function afterCursor(list: string, cursor: string | undefined) {
  if (!cursor) return null;
  const position = decodeCursor(list, cursor, 'instant');
  const at = new Date(position.key);
  return { $or: [{ createdAt: { $lt: at } }, { createdAt: at, id: { $lt: position.id } }] };
}

/** An exact id, or an externalId equal to or starting with the text. */
export const searchCondition = (search: string | undefined) => (search ? { $or: [{ id: search }, { externalId: { $like: likePrefix(search) } }] } : null);

export const NEWEST_FIRST = { createdAt: 'desc', id: 'desc' } as const;

export const createdPosition = (row: { createdAt: Date; id: string }): Position => ({ key: row.createdAt.toISOString(), id: row.id });
