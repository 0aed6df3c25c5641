import { Migration } from '@mikro-orm/migrations';

export class Migration20261122011935_tenancy extends Migration {

  override name = 'Migration20261122011935_tenancy';

  override up(): void | Promise<void> {
    this.addSql(`create table "organizations" ("id" varchar(255) not null, "name" varchar(255) not null, "billing_status" text not null default 'active', "monthly_tx_limit" int null, "created_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "monthly_usage" ("organization_id" varchar(255) not null, "period" varchar(7) not null, "transactions" int not null default 0, primary key ("organization_id", "period"));`);

    this.addSql(`create table "projects" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "name" varchar(255) not null, "created_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "environments" ("id" varchar(255) not null, "project_id" varchar(255) not null, "kind" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "environments" add constraint "environments_project_id_kind_unique" unique ("project_id", "kind");`);

    this.addSql(`create table "api_keys" ("id" varchar(255) not null, "environment_id" varchar(255) not null, "name" varchar(255) null, "key_hash" varchar(64) not null, "display_prefix" varchar(32) not null, "rate_limits" jsonb null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);

    this.addSql(`alter table "organizations" add constraint "organizations_billing_status_check" check ("billing_status" in ('active', 'inactive', 'past_due', 'incomplete', 'canceled', 'expired'));`);

    this.addSql(`alter table "monthly_usage" add constraint "monthly_usage_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id");`);

    this.addSql(`alter table "projects" add constraint "projects_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id");`);

    this.addSql(`alter table "environments" add constraint "environments_project_id_foreign" foreign key ("project_id") references "projects" ("id");`);
    this.addSql(`alter table "environments" add constraint "environments_kind_check" check ("kind" in ('sandbox', 'production'));`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_environment_id_foreign" foreign key ("environment_id") references "environments" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "monthly_usage" drop constraint "monthly_usage_organization_id_foreign";`);
    this.addSql(`alter table "projects" drop constraint "projects_organization_id_foreign";`);
    this.addSql(`alter table "environments" drop constraint "environments_project_id_foreign";`);
    this.addSql(`alter table "api_keys" drop constraint "api_keys_environment_id_foreign";`);

    this.addSql(`drop table if exists "organizations" cascade;`);
    this.addSql(`drop table if exists "monthly_usage" cascade;`);
    this.addSql(`drop table if exists "projects" cascade;`);
    this.addSql(`drop table if exists "environments" cascade;`);
    this.addSql(`drop table if exists "api_keys" cascade;`);
  }

}
