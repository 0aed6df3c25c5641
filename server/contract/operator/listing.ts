/**
 * Inputs of the dashboard's list, detail and overview procedures (payments,
 * subscriptions, the home page). Browser-safe: only zod and the contract, so
 * the dashboard validates its filter forms with these same schemas.
 */
import { z } from 'zod';
import { GATEWAY_NAMES, PAYMENT_METHODS, PAYMENT_STATUSES, SUBSCRIPTION_STATUSES } from '../enums';
import { TEXT_LIMITS } from '../limits';
import { RecordId, text } from '../schemas/text';

/** Items per page of a list: 25 unless asked, at most 100. */
export const PAGE_SIZE = { default: 25, max: 100 } as const;

const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);

/**
 * An instant with its offset (`2026-11-22T10:00:00Z`, `2026-11-22T07:00:00-03:00`),
 * within years the databases and `Date` both represent the same way.
 */
export const Instant = z.iso
  .datetime({ offset: true })
  .refine((value) => Date.parse(value) >= EARLIEST && Date.parse(value) <= LATEST, 'must be between 1970 and 9999');

/** The opaque position a list handed out as `nextCursor`. */
export const Cursor = text({ min: 1, max: 512 });

/** Created at or after `createdFrom`, and strictly before `createdTo`. */
const createdRange = {
  createdFrom: Instant.optional(),
  createdTo: Instant.optional(),
};

const page = {
  cursor: Cursor.optional(),
  limit: z.int().min(1).max(PAGE_SIZE.max).default(PAGE_SIZE.default),
};

/** A range whose end is not after its start would always be empty: a mistake to report. */
const rangeInOrder = (input: { createdFrom?: string; createdTo?: string }) =>
  !input.createdFrom || !input.createdTo || Date.parse(input.createdFrom) < Date.parse(input.createdTo);
const RANGE_ORDER = { message: 'createdTo must be after createdFrom', path: ['createdTo'] };

/**
 * One search box (domain/listing/search.ts): an exact `pay_`/`sub_` id or an
 * externalId or its start; with an `@` also a customer e-mail or its start;
 * a number (`25`, `25.00`, `25,50`) also an amount in major units; anything
 * else also a customer name containing it. Case-insensitive but for ids.
 */
const Search = text({ min: 1, max: TEXT_LIMITS.externalId });

/** The orders of the lists: created (newest first unless asked) or amount, each way. Kept in sync with domain/listing/sort.ts. */
export const LIST_SORTS = ['created_desc', 'created_asc', 'amount_desc', 'amount_asc'] as const;
const sort = { sort: z.enum(LIST_SORTS).default('created_desc') };

/** What selects payments, without the page: the list's filter, and the CSV export's. */
const paymentFilter = {
  environmentId: RecordId,
  status: z.enum(PAYMENT_STATUSES).optional(),
  method: z.enum(PAYMENT_METHODS).optional(),
  gateway: z.enum(GATEWAY_NAMES).optional(),
  /** true: only payments with at least one refund (pending, succeeded or failed). */
  refunded: z.literal(true).optional(),
  ...createdRange,
  search: Search.optional(),
  ...sort,
};

const subscriptionFilter = {
  environmentId: RecordId,
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  gateway: z.enum(GATEWAY_NAMES).optional(),
  ...createdRange,
  search: Search.optional(),
  ...sort,
};

export const PaymentListInput = z.strictObject({ ...paymentFilter, ...page }).refine(rangeInOrder, RANGE_ORDER);
export type PaymentListFilter = z.output<typeof PaymentListInput>;

export const SubscriptionListInput = z.strictObject({ ...subscriptionFilter, ...page }).refine(rangeInOrder, RANGE_ORDER);
export type SubscriptionListFilter = z.output<typeof SubscriptionListInput>;

/** The CSV export of a list: the same filter and order, every row (no page). */
export const PaymentExportInput = z.strictObject(paymentFilter).refine(rangeInOrder, RANGE_ORDER);
export const SubscriptionExportInput = z.strictObject(subscriptionFilter).refine(rangeInOrder, RANGE_ORDER);

export const PaymentGetInput = z.strictObject({ paymentId: RecordId });
export const SubscriptionGetInput = z.strictObject({ subscriptionId: RecordId });

/** The home page: the last `days` days (today included, UTC), 30 unless asked, at most 90. */
export const OverviewInput = z.strictObject({
  environmentId: RecordId,
  days: z.int().min(1).max(90).default(30),
});

export { createdRange, page, rangeInOrder, RANGE_ORDER };
