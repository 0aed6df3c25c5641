import { Migration } from '@mikro-orm/migrations';

export class Migration20261124120000_quota_counters extends Migration {

  override name = 'Migration20261124120000_quota_counters';

  override up(): void | Promise<void> {
    this.addSql(`create table "quota_counters" ("organization_id" varchar(255) not null, "period" varchar(7) not null, "generation" varchar(32) not null, "admitted" int not null, "last_admit_at" timestamptz not null, primary key ("organization_id", "period"));`);
    this.addSql(`create table "quota_claims" ("environment_id" varchar(255) not null, "external_id" varchar(255) not null, "organization_id" varchar(255) not null, "period" varchar(7) not null, "token" varchar(32) not null, "created_at" timestamptz not null, primary key ("environment_id", "external_id"));`);
    this.addSql(`create index "quota_claims_organization_id_period_index" on "quota_claims" ("organization_id", "period");`);
    this.addSql(`alter table "quota_counters" add constraint "quota_counters_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "quota_claims" cascade;`);
    this.addSql(`drop table if exists "quota_counters" cascade;`);
  }

}
