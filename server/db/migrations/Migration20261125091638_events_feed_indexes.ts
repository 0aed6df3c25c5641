import { Migration } from '@mikro-orm/migrations';

/** GET /v1/events reads one environment's events in sequence order (of one type or all); pruning finds an event's deliveries. */
export class Migration20261125091638_events_feed_indexes extends Migration {

  override name = 'Migration20261125091638_events_feed_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "events_environment_id_sequence_index" on "events" ("environment_id", "sequence");`);
    this.addSql(`create index "events_environment_id_type_sequence_index" on "events" ("environment_id", "type", "sequence");`);

    this.addSql(`create index "webhook_deliveries_event_id_index" on "webhook_deliveries" ("event_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "events_environment_id_sequence_index";`);
    this.addSql(`drop index "events_environment_id_type_sequence_index";`);

    this.addSql(`drop index "webhook_deliveries_event_id_index";`);
  }

}
