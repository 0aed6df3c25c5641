import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes that keep every dashboard list and search bounded by its page
 * (issue 39; domain/listing/page-query.ts, search.ts), each one a read the
 * lists make that no existing index serves. Each costs every insert of a row
 * (and an update of its status, for the status ones) an index entry: the
 * payments table carries five more, which is why there is none per filter
 * combination. Method and gateway are few values spread over every row: the
 * list walks (environment, created_at) or (environment, amount) and filters
 * them, touching a few times the page, so they get none.
 */
export class Migration20261127124617_bounded_list_indexes extends Migration {

  override name = 'Migration20261127124617_bounded_list_indexes';

  override up(): void | Promise<void> {
    // Name search by any part of the name: trigrams, from PostgreSQL's contrib (PGlite loads it too: db/orm.ts).
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create index "payments_customer_name_trgm_index" on "payments" using gin (lower("customer_name") gin_trgm_ops);`);
    this.addSql(`create index "subscriptions_customer_name_trgm_index" on "subscriptions" using gin (lower("customer_name") gin_trgm_ops);`);
    // A status filter: a rare status (failed, refunded) would otherwise walk the newest rows of every status to fill a page.
    this.addSql(`create index "payments_environment_id_status_created_at_id_index" on "payments" ("environment_id", "status", "created_at", "id");`);
    this.addSql(`create index "subscriptions_environment_id_status_created_at_id_index" on "subscriptions" ("environment_id", "status", "created_at", "id");`);
    // An amount searched ("25.07"), newest first: every payment of that amount would otherwise be read and sorted.
    this.addSql(`create index "payments_environment_id_amount_created_at_id_index" on "payments" ("environment_id", "amount", "created_at", "id");`);
    this.addSql(`create index "subscriptions_environment_id_amount_created_at_id_index" on "subscriptions" ("environment_id", "amount", "created_at", "id");`);
    // An externalId's start (`like 'order-12%'`): the unique (environment_id, external_id) index serves LIKE only under the C collation.
    this.addSql(`create index "payments_external_id_prefix_index" on "payments" ("environment_id", "external_id" text_pattern_ops);`);
    this.addSql(`create index "subscriptions_external_id_prefix_index" on "subscriptions" ("environment_id", "external_id" text_pattern_ops);`);
  }

  override down(): void | Promise<void> {
    for (const index of [
      'payments_customer_name_trgm_index', 'subscriptions_customer_name_trgm_index',
      'payments_environment_id_status_created_at_id_index', 'subscriptions_environment_id_status_created_at_id_index',
      'payments_environment_id_amount_created_at_id_index', 'subscriptions_environment_id_amount_created_at_id_index',
      'payments_external_id_prefix_index', 'subscriptions_external_id_prefix_index',
    ]) this.addSql(`drop index if exists "${index}";`);
  }

}
