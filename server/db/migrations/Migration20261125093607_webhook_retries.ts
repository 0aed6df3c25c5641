import { Migration } from '@mikro-orm/migrations';

/**
 * Opt-in automatic delivery retries (decision 23): the endpoint's switch (off for every existing endpoint), when a
 * waiting delivery is next due, the `retry` trigger of its attempts, and the index behind an endpoint's recent
 * success rate.
 */
export class Migration20261125093607_webhook_retries extends Migration {

  override name = 'Migration20261125093607_webhook_retries';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_endpoints" add "retries" boolean not null default false;`);

    this.addSql(`alter table "webhook_deliveries" add "next_attempt_at" timestamptz null;`);
    this.addSql(`create index "webhook_deliveries_endpoint_id_last_attempt_at_index" on "webhook_deliveries" ("endpoint_id", "last_attempt_at");`);

    this.addSql(`alter table "webhook_attempts" drop constraint "webhook_attempts_trigger_check";`);
    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_trigger_check" check ("trigger" in ('dispatch', 'retry', 'resend'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_attempts" drop constraint "webhook_attempts_trigger_check";`);
    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_trigger_check" check ("trigger" in ('dispatch', 'resend'));`);

    this.addSql(`drop index "webhook_deliveries_endpoint_id_last_attempt_at_index";`);
    this.addSql(`alter table "webhook_deliveries" drop column "next_attempt_at";`);

    this.addSql(`alter table "webhook_endpoints" drop column "retries";`);
  }

}
