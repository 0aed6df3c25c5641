/**
 * What the search box of the payments and subscriptions lists matches. One
 * box, read by the shape of what was typed:
 * - always: the exact `pay_`/`sub_` id, or an externalId equal to or starting with the text;
 * - text with an `@`: also a customer e-mail equal to or starting with it, whatever the case;
 * - a number (`25`, `25.00`, `25,5`, `1,234.56`, `1.234,56`): also an amount
 *   of exactly that many major units of the currency, as the dashboard shows
 *   amounts (`25` and `25.00` are 2500 cents);
 * - anything else of at least NAME_MIN characters: also a customer name
 *   containing the text, whatever the case. Shorter text searches ids and
 *   externalIds only: a name is found by any part of it through a trigram
 *   index (pg_trgm), and one or two characters make no trigram, so they
 *   would read every row of the environment.
 * `%`, `_` and `\` typed are literal characters, never LIKE wildcards.
 *
 * Each form is its own condition (searchForms), served by its own index:
 * the primary key, (environment, external_id text_pattern_ops),
 * (environment, lower(e-mail) text_pattern_ops), (environment, amount,
 * created_at, id) and the trigram index on lower(name). A list runs them as
 * separate queries, each limited to the page, and merges them
 * (listing/page-query.ts): one query with their OR would leave the planner a
 * choice between combining every match of every form and scanning.
 */
import { raw } from '@mikro-orm/core';
import { likePrefix } from './filters';

/** `25`, `25.5`, `25.50`, `25,50`: major units with at most two decimals, `.` or `,` before them. */
const AMOUNT = /^(\d{1,12})(?:[.,](\d{1,2}))?$/;
/** With thousands grouped as the dashboard shows them (`1,234.56`), or as in Brazil (`1.234,56`). */
const GROUPED = [/^(\d{1,3}(?:,\d{3})+)(?:\.(\d{1,2}))?$/, /^(\d{1,3}(?:\.\d{3})+)(?:,(\d{1,2}))?$/];

/**
 * The amount in cents a typed number stands for, or null if the text is not
 * one. Decimals are at most two digits, so three digits after a separator
 * always group thousands: `1,234` and `1.234` are 1234 units.
 */
export function amountInCents(text: string): number | null {
  const match = AMOUNT.exec(text) ?? GROUPED.map((pattern) => pattern.exec(text)).find(Boolean) ?? null;
  if (!match) return null;
  const cents = Number(match[1]!.replace(/[.,]/g, '')) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : null;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** Names are searched from this many characters on (the fewest a trigram index serves). */
export const NAME_MIN = 3;

/**
 * The forms a searched text is matched by, each a condition of its own (any
 * of them matching makes the row a result), or null without a search.
 */
export function searchForms(search: string | undefined): object[] | null {
  if (!search) return null;
  const text = search.trim();
  if (!text) return null;
  const reference = [{ id: text }, { externalId: { $like: likePrefix(text) } }];
  if (text.includes('@')) return [...reference, { [raw((alias: string) => `lower(${alias}.customer_email)`)]: { $like: likePrefix(text.toLowerCase()) } }];
  const cents = amountInCents(text);
  if (cents !== null) return [...reference, { amount: cents }];
  if (text.length < NAME_MIN) return reference;
  return [...reference, { [raw((alias: string) => `lower(${alias}.customer_name)`)]: { $like: `%${escapeLike(text.toLowerCase())}%` } }];
}
