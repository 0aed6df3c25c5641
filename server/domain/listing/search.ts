/**
 * What the search box of the payments and subscriptions lists matches. One
 * box, read by the shape of what was typed; every form that applies is
 * tried (a row any of them matches is a result), so ambiguous text
 * ("1234": a card's last 4, a document's, an amount) finds each:
 * - always: the exact `pay_`/`sub_` id, or an externalId equal to or
 *   starting with the text;
 * - payments, one word: the gateway's reference of the payment, exact
 *   (`pi_…`, `cob_…`), and a metadata value, exact, under any key;
 * - text with an `@`: a customer e-mail equal to or starting with it,
 *   whatever the case; starting with `@` (`@uol.com.br`): the e-mail's
 *   domain or its start; a word of at least NAME_MIN characters without `@`
 *   (`ana.silva`): an e-mail starting with it; one shaped as a domain
 *   (`uol.com.br`), payments: the e-mail's domain too;
 * - a number (`25`, `25.00`, `25,5`, `1,234.56`, `1.234,56`, `R$ 386,90`):
 *   an amount of exactly that many major units of the currency, as the
 *   dashboard shows amounts (`25` and `25.00` are 2500 cents);
 * - payments, 4 digits: the card's last 4 or the customer document's; a
 *   whole CPF or CNPJ (11 or 14 digits, dots and dashes as typed): its last 4;
 * - anything else of at least NAME_MIN characters: a customer name
 *   containing the text, whatever the case and the accents ("joao" finds
 *   "João": search_text() in the database, migration search_forms_indexes).
 *   Shorter text searches no name: a name is found by any part of it through
 *   a trigram index (pg_trgm), and one or two characters make no trigram, so
 *   they would read every row of the environment.
 * `%`, `_` and `\` typed are literal characters, never LIKE wildcards.
 *
 * Each form is its own condition (searchForms), served by its own index:
 * the primary key, (environment, external_id text_pattern_ops),
 * (gateway, gateway_ref) probed once per gateway, the GIN of metadata values,
 * (environment, lower(e-mail) text_pattern_ops), (environment, lower(e-mail's
 * domain) text_pattern_ops), (environment, amount, created_at, id),
 * (environment, card_last4), (environment, customer_document_last4) and the
 * trigram index on the normalized name (customer_name_search). A list runs them as separate queries,
 * each limited to the page, and merges them (listing/page-query.ts): one
 * query with their OR would leave the planner a choice between combining
 * every match of every form and scanning.
 */
import { raw } from '@mikro-orm/core';
import { GATEWAY_NAMES } from '../../contract/enums';
import { likePrefix } from './filters';

/** `25`, `25.5`, `25.50`, `25,50`: major units with at most two decimals, `.` or `,` before them. */
const AMOUNT = /^(\d{1,12})(?:[.,](\d{1,2}))?$/;
/** With thousands grouped as the dashboard shows them (`1,234.56`), or as in Brazil (`1.234,56`). */
const GROUPED = [/^(\d{1,3}(?:,\d{3})+)(?:\.(\d{1,2}))?$/, /^(\d{1,3}(?:\.\d{3})+)(?:,(\d{1,2}))?$/];
/** The currency as a Brazilian writes it before an amount (`R$ 386,90`, `R$386,90`). */
const CURRENCY = /^R\$\s*/i;

/**
 * The amount in cents a typed number stands for, or null if the text is not
 * one. Decimals are at most two digits, so three digits after a separator
 * always group thousands: `1,234` and `1.234` are 1234 units.
 */
export function amountInCents(typed: string): number | null {
  const text = typed.replace(CURRENCY, '');
  const match = AMOUNT.exec(text) ?? GROUPED.map((pattern) => pattern.exec(text)).find(Boolean) ?? null;
  if (!match) return null;
  const cents = Number(match[1]!.replace(/[.,]/g, '')) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : null;
}

/** The last 4 digits a typed text names: 4 digits (a card's or a document's), or a whole CPF or CNPJ as typed (`529.982.247-25`). */
export function lastFourOf(text: string): string | null {
  if (/^\d{4}$/.test(text)) return text;
  if (!/^[\d./-]+$/.test(text)) return null;
  const digits = text.replace(/\D/g, '');
  return digits.length === 11 || digits.length === 14 ? digits.slice(-4) : null;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** Names are searched from this many characters on (the fewest a trigram index serves); e-mails without `@` too. */
export const NAME_MIN = 3;

/** A domain as typed after an `@`, or alone (`uol.com.br`): labels of letters, digits and dashes, with a dot. */
const DOMAIN = /^[\p{L}\d-]+(?:\.[\p{L}\d-]+)+$/u;
/** One word: no spaces (references, metadata values, e-mails are typed as one). */
const WORD = /^\S+$/;

/** Which list searches: payments have support's forms (their indexes, migration search_forms_indexes), subscriptions the others. */
export type SearchedList = 'payments' | 'subscriptions';

const emailPrefix = (text: string) => ({ [raw((alias: string) => `lower(${alias}.customer_email)`)]: { $like: likePrefix(text.toLowerCase()) } });
const emailDomain = (domain: string) => ({ [raw((alias: string) => `lower(split_part(${alias}.customer_email, '@', 2))`)]: { $like: likePrefix(domain.toLowerCase()) } });
/** The name without accents and case: the name as stored normalized (customer_name_search), the text through the same search_text(). */
const nameContains = (text: string) => ({ [raw((alias: string) => `${alias}.customer_name_search like public.search_text(?)`, [`%${escapeLike(text)}%`])]: [] });
/** A metadata value under any key, exact (a string as typed): containment in the array of values, the GIN index's expression. */
const metadataValue = (text: string) => ({ [raw((alias: string) => `jsonb_path_query_array(${alias}.metadata, '$.*') @> cast(? as jsonb) and ${alias}.metadata is not null`, [JSON.stringify([text])])]: [] });

/**
 * The forms a searched text is matched by, each a condition of its own (any
 * of them matching makes the row a result), or null without a search.
 */
export function searchForms(search: string | undefined, list: SearchedList = 'subscriptions'): object[] | null {
  if (!search) return null;
  const text = search.trim();
  if (!text) return null;
  const support = list === 'payments';
  const forms: object[] = [{ id: text }, { externalId: { $like: likePrefix(text) } }];
  const word = WORD.test(text);
  // The gateway's reference: exact, through the (gateway, gateway_ref) index, one probe per gateway.
  if (support && word) forms.push({ gateway: { $in: [...GATEWAY_NAMES] }, gatewayRef: text }, metadataValue(text));
  const cents = amountInCents(text);
  if (cents !== null) forms.push({ amount: cents });
  const lastFour = support ? lastFourOf(text) : null;
  if (lastFour) forms.push({ cardLast4: lastFour }, { customerDocumentLast4: lastFour });
  if (cents !== null || lastFour) return forms;
  if (text.includes('@')) {
    if (text.startsWith('@')) return support && text.length > 1 ? [...forms, emailDomain(text.slice(1))] : forms;
    return [...forms, emailPrefix(text)];
  }
  if (text.length < NAME_MIN) return forms;
  if (word) forms.push(emailPrefix(text));
  if (support && DOMAIN.test(text)) forms.push(emailDomain(text));
  return [...forms, nameContains(text)];
}
