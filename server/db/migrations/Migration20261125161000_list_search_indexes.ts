import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes of the dashboard lists' search and sort (domain/listing/search.ts,
 * sort.ts): a customer e-mail or its start whatever the case
 * (`lower(customer_email) like 'ana@%'`, text_pattern_ops so LIKE uses it
 * whatever the collation), an exact amount and the order by amount then id.
 */
export class Migration20261125161000_list_search_indexes extends Migration {

  override name = 'Migration20261125161000_list_search_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "payments_customer_email_search_index" on "payments" ("environment_id", lower("customer_email") text_pattern_ops);`);
    this.addSql(`create index "subscriptions_customer_email_search_index" on "subscriptions" ("environment_id", lower("customer_email") text_pattern_ops);`);
    this.addSql(`create index "payments_environment_id_amount_id_index" on "payments" ("environment_id", "amount", "id");`);
    this.addSql(`create index "subscriptions_environment_id_amount_id_index" on "subscriptions" ("environment_id", "amount", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "payments_customer_email_search_index";`);
    this.addSql(`drop index "subscriptions_customer_email_search_index";`);
    this.addSql(`drop index "payments_environment_id_amount_id_index";`);
    this.addSql(`drop index "subscriptions_environment_id_amount_id_index";`);
  }

}
