import { Migration } from '@mikro-orm/migrations';

/** Indexes of the dashboard's lists (newest first per environment) and of its failed-deliveries count. */
export class Migration20261122181000_listing_indexes extends Migration {

  override name = 'Migration20261122181000_listing_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "payments_environment_id_created_at_id_index" on "payments" ("environment_id", "created_at", "id");`);
    this.addSql(`create index "subscriptions_environment_id_created_at_id_index" on "subscriptions" ("environment_id", "created_at", "id");`);
    this.addSql(`create index "webhook_deliveries_environment_id_status_index" on "webhook_deliveries" ("environment_id", "status");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "payments_environment_id_created_at_id_index";`);
    this.addSql(`drop index "subscriptions_environment_id_created_at_id_index";`);
    this.addSql(`drop index "webhook_deliveries_environment_id_status_index";`);
  }

}
