import { Migration } from '@mikro-orm/migrations';

export class Migration20261122013558_payments_routing_outbox extends Migration {

  override name = 'Migration20261122013558_payments_routing_outbox';

  override up(): void | Promise<void> {
    this.addSql(`create table "payments" ("id" varchar(255) not null, "environment_id" varchar(255) not null, "external_id" varchar(255) not null, "method" text not null, "gateway" text not null, "amount" bigint not null, "currency" varchar(3) not null default 'BRL', "installments" int not null default 1, "status" text not null default 'created', "gateway_ref" varchar(255) null, "checkout_url" text null, "pix_qr_code" text null, "pix_qr_code_text" text null, "card_brand" varchar(64) null, "card_last4" varchar(4) null, "customer_name" varchar(255) null, "customer_email" varchar(255) null, "customer_document_last4" varchar(4) null, "metadata" jsonb null, "gateway_status" varchar(64) null, "request_hash" varchar(64) not null, "pending_request_sealed" text null, "registration_lease_until" timestamptz null, "subscription_id" varchar(64) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "payments_gateway_gateway_ref_index" on "payments" ("gateway", "gateway_ref");`);
    this.addSql(`alter table "payments" add constraint "payments_environment_id_external_id_unique" unique ("environment_id", "external_id");`);

    this.addSql(`create table "events" ("id" varchar(255) not null, "sequence" bigserial, "environment_id" varchar(255) not null, "type" varchar(64) not null, "resource_id" varchar(64) not null, "data" jsonb not null, "created_at" timestamptz not null, "dispatched_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "events" add constraint "events_sequence_unique" unique ("sequence");`);
    this.addSql(`create index "events_dispatched_at_sequence_index" on "events" ("dispatched_at", "sequence");`);
    this.addSql(`create index "events_environment_id_resource_id_index" on "events" ("environment_id", "resource_id");`);

    this.addSql(`create table "gateway_accounts" ("id" varchar(255) not null, "environment_id" varchar(255) not null, "gateway" text not null, "enabled" boolean not null default true, "base_url" varchar(2048) not null, "credentials_sealed" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "gateway_accounts" add constraint "gateway_accounts_environment_id_gateway_unique" unique ("environment_id", "gateway");`);

    this.addSql(`create table "inbound_webhooks" ("id" bigserial primary key, "account_id" varchar(255) not null, "event_id" varchar(255) not null, "kind" varchar(64) not null, "received_at" timestamptz not null);`);
    this.addSql(`alter table "inbound_webhooks" add constraint "inbound_webhooks_account_id_event_id_unique" unique ("account_id", "event_id");`);

    this.addSql(`create table "routing_rules" ("environment_id" varchar(255) not null, "method" text not null, "gateway" text not null, "updated_at" timestamptz not null, primary key ("environment_id", "method"));`);

    this.addSql(`alter table "payments" add constraint "payments_environment_id_foreign" foreign key ("environment_id") references "environments" ("id");`);
    this.addSql(`alter table "payments" add constraint "payments_method_check" check ("method" in ('pix', 'card'));`);
    this.addSql(`alter table "payments" add constraint "payments_gateway_check" check ("gateway" in ('gateway_a', 'gateway_b', 'gateway_c'));`);
    this.addSql(`alter table "payments" add constraint "payments_status_check" check ("status" in ('created', 'pending', 'processing', 'paid', 'failed', 'canceled', 'expired'));`);

    this.addSql(`alter table "events" add constraint "events_environment_id_foreign" foreign key ("environment_id") references "environments" ("id");`);

    this.addSql(`alter table "gateway_accounts" add constraint "gateway_accounts_environment_id_foreign" foreign key ("environment_id") references "environments" ("id");`);
    this.addSql(`alter table "gateway_accounts" add constraint "gateway_accounts_gateway_check" check ("gateway" in ('gateway_a', 'gateway_b', 'gateway_c'));`);

    this.addSql(`alter table "inbound_webhooks" add constraint "inbound_webhooks_account_id_foreign" foreign key ("account_id") references "gateway_accounts" ("id");`);

    this.addSql(`alter table "routing_rules" add constraint "routing_rules_environment_id_foreign" foreign key ("environment_id") references "environments" ("id");`);
    this.addSql(`alter table "routing_rules" add constraint "routing_rules_method_check" check ("method" in ('PIX', 'CARD', 'SUBSCRIPTION'));`);
    this.addSql(`alter table "routing_rules" add constraint "routing_rules_gateway_check" check ("gateway" in ('gateway_a', 'gateway_b', 'gateway_c'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "inbound_webhooks" drop constraint "inbound_webhooks_account_id_foreign";`);

    this.addSql(`drop table if exists "payments" cascade;`);
    this.addSql(`drop table if exists "events" cascade;`);
    this.addSql(`drop table if exists "gateway_accounts" cascade;`);
    this.addSql(`drop table if exists "inbound_webhooks" cascade;`);
    this.addSql(`drop table if exists "routing_rules" cascade;`);
  }

}
