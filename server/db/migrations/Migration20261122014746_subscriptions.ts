import { Migration } from '@mikro-orm/migrations';

export class Migration20261122014746_subscriptions extends Migration {

  override name = 'Migration20261122014746_subscriptions';

  override up(): void | Promise<void> {
    this.addSql(`create table "subscriptions" ("id" varchar(255) not null, "environment_id" varchar(255) not null, "external_id" varchar(255) not null, "gateway" text not null, "amount" bigint not null, "currency" varchar(3) not null default 'BRL', "interval" text not null, "trial_days" int not null default 0, "status" text not null, "trial_ends_at" timestamptz null, "next_billing_at" timestamptz null, "cancel_at_period_end" boolean not null default false, "canceled_at" timestamptz null, "gateway_ref" varchar(255) null, "checkout_url" text null, "plan_id" varchar(255) null, "customer_name" varchar(255) null, "customer_email" varchar(255) null, "customer_document_last4" varchar(4) null, "metadata" jsonb null, "gateway_status" varchar(64) null, "created_event_recorded" boolean not null default false, "request_hash" varchar(64) not null, "pending_request_sealed" text null, "registration_lease_until" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "subscriptions_gateway_gateway_ref_index" on "subscriptions" ("gateway", "gateway_ref");`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_environment_id_external_id_unique" unique ("environment_id", "external_id");`);

    this.addSql(`alter table "subscriptions" add constraint "subscriptions_environment_id_foreign" foreign key ("environment_id") references "environments" ("id");`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_gateway_check" check ("gateway" in ('gateway_a', 'gateway_b', 'gateway_c'));`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_interval_check" check ("interval" in ('monthly', 'yearly'));`);
    this.addSql(`alter table "subscriptions" add constraint "subscriptions_status_check" check ("status" in ('trialing', 'active', 'past_due', 'canceled'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "subscriptions" cascade;`);
  }

}
