import { Migration } from '@mikro-orm/migrations';

/**
 * The payments list filtered by a status and a method (the dashboard's
 * "paid" + "card"), newest first: with the method only a filter on the
 * (environment, status, created_at, id) rows, the first page's capped total
 * read 10,001 / (the method's share) rows, 25,084 at 500,000 payments
 * (issue 39, bench/RESULTS.md). With the method in the index the total reads
 * at most its 10,001 entries and a page its own rows. The method never
 * changes once a payment exists, so the index costs an entry per insert and
 * per status change, as the status one does; a gateway filter stays a filter
 * (three values, and not a combination the dashboard leads with).
 */
export class Migration20261127163000_paid_card_list_index extends Migration {

  override name = 'Migration20261127163000_paid_card_list_index';

  override up(): void | Promise<void> {
    this.addSql(`create index "payments_environment_id_status_method_created_at_id_index" on "payments" ("environment_id", "status", "method", "created_at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "payments_environment_id_status_method_created_at_id_index";`);
  }

}
