import { Migration } from '@mikro-orm/migrations';

/**
 * The payments list's "refunded" filter (payments with at least one refund,
 * any status) read through an index. It was `id in (the environment's
 * refunds)`: a page walked the newest payments probing each (2,501 rows read
 * for a page at 500,000 payments, 1 in 36 refunded) and the total was a
 * sequential scan (issue 39). Whether a payment has a refund is now on its
 * row, `has_refund`, with partial indexes of the refunded rows only in the
 * list's two orders, so a page reads its rows and the total at most 10,001.
 *
 * A trigger on refunds keeps it: every refund inserted, by whatever path (the
 * API, a reconciliation, an SQL seed), marks its payment in the same
 * statement, so the flag is never behind the refunds table. A refund is
 * created under its payment's row lock (the sum rule), so the update waits
 * for nothing new; a refund is never deleted, so nothing unmarks. The
 * daily-totals trigger on payments sees an update that changes none of its
 * columns and writes nothing.
 */
export class Migration20261127164500_payments_refunded_flag extends Migration {

  override name = 'Migration20261127164500_payments_refunded_flag';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payments" add column "has_refund" boolean not null default false;`);
    this.addSql(`update "payments" set "has_refund" = true where "id" in (select "payment_id" from "refunds");`);
    this.addSql(`create index "payments_refunded_created_at_index" on "payments" ("environment_id", "created_at", "id") where "has_refund";`);
    this.addSql(`create index "payments_refunded_amount_index" on "payments" ("environment_id", "amount", "id") where "has_refund";`);
    this.addSql(`create function "payments_mark_refunded"() returns trigger language plpgsql as $$
      begin
        update "payments" set "has_refund" = true where "id" = new."payment_id" and not "has_refund";
        return null;
      end $$;`);
    this.addSql(`create trigger "refunds_mark_payment" after insert on "refunds" for each row execute function "payments_mark_refunded"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "refunds_mark_payment" on "refunds";`);
    this.addSql(`drop function if exists "payments_mark_refunded"();`);
    this.addSql(`drop index if exists "payments_refunded_created_at_index";`);
    this.addSql(`drop index if exists "payments_refunded_amount_index";`);
    this.addSql(`alter table "payments" drop column if exists "has_refund";`);
  }

}
