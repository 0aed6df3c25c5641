import { Migration } from '@mikro-orm/migrations';

/**
 * The deliveries list filtered by a status (the dashboard's failed
 * deliveries), newest event first: the (environment_id, status) index gave
 * the rows of that status in no order, so the planner walked the
 * (environment_id, event_sequence) index and filtered the status instead,
 * 647 rows for a page of 26 at 200,000 payments and more the rarer the
 * status (issue 39). (environment_id, status, event_sequence, id) gives them
 * in the list's order and serves whatever the old index served (its
 * prefix), so it replaces it: the table keeps as many indexes as it had.
 */
export class Migration20261127165000_delivery_status_list_index extends Migration {

  override name = 'Migration20261127165000_delivery_status_list_index';

  override up(): void | Promise<void> {
    this.addSql(`create index "webhook_deliveries_environment_id_status_event_sequence_id_index" on "webhook_deliveries" ("environment_id", "status", "event_sequence", "id");`);
    this.addSql(`drop index if exists "webhook_deliveries_environment_id_status_index";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create index if not exists "webhook_deliveries_environment_id_status_index" on "webhook_deliveries" ("environment_id", "status");`);
    this.addSql(`drop index if exists "webhook_deliveries_environment_id_status_event_sequence_id_index";`);
  }

}
