import { Migration } from '@mikro-orm/migrations';

export class Migration20261122013958_webhooks extends Migration {

  override name = 'Migration20261122013958_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_endpoints" ("id" varchar(255) not null, "environment_id" varchar(255) not null, "url" varchar(2048) not null, "enabled_events" jsonb not null, "enabled" boolean not null default true, "description" varchar(255) null, "secret_sealed" text not null, "secret_rotated_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_endpoints_environment_id_enabled_index" on "webhook_endpoints" ("environment_id", "enabled");`);

    this.addSql(`create table "webhook_deliveries" ("id" varchar(255) not null, "endpoint_id" varchar(255) not null, "event_id" varchar(255) not null, "environment_id" varchar(255) not null, "event_type" varchar(64) not null, "event_sequence" bigint not null, "status" text not null default 'PENDING', "attempt_count" int not null default 0, "body" text null, "signed_timestamp" bigint null, "signature" varchar(80) null, "lease_owner" varchar(64) null, "lease_until" timestamptz null, "last_attempt_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_deliveries_status_endpoint_id_event_sequence_index" on "webhook_deliveries" ("status", "endpoint_id", "event_sequence");`);
    this.addSql(`create index "webhook_deliveries_environment_id_event_sequence_index" on "webhook_deliveries" ("environment_id", "event_sequence");`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_event_id_unique" unique ("endpoint_id", "event_id");`);

    this.addSql(`create table "webhook_attempts" ("id" bigserial primary key, "delivery_id" varchar(255) not null, "number" int not null, "trigger" text not null, "started_at" timestamptz not null, "finished_at" timestamptz null, "outcome" text null, "response_status" int null, "duration_ms" int null, "response_excerpt" text null, "error" varchar(512) null);`);
    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_number_unique" unique ("delivery_id", "number");`);

    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_environment_id_foreign" foreign key ("environment_id") references "environments" ("id");`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id");`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_event_id_foreign" foreign key ("event_id") references "events" ("id");`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_environment_id_foreign" foreign key ("environment_id") references "environments" ("id");`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_status_check" check ("status" in ('PENDING', 'SENT', 'FAILED'));`);

    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id");`);
    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_trigger_check" check ("trigger" in ('dispatch', 'resend'));`);
    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_outcome_check" check ("outcome" in ('SENT', 'FAILED', 'INTERRUPTED'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_endpoint_id_foreign";`);
    this.addSql(`alter table "webhook_attempts" drop constraint "webhook_attempts_delivery_id_foreign";`);

    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "webhook_attempts" cascade;`);
  }

}
