import { Migration } from '@mikro-orm/migrations';

export class Migration20261122154826_transaction_usage extends Migration {

  override name = 'Migration20261122154826_transaction_usage';

  override up(): void | Promise<void> {
    this.addSql(`create table "transaction_usage" ("payment_id" varchar(255) not null, "organization_id" varchar(255) not null, "period" varchar(7) not null, "created_at" timestamptz not null, primary key ("payment_id"));`);
    this.addSql(`create index "transaction_usage_organization_id_period_index" on "transaction_usage" ("organization_id", "period");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "transaction_usage" cascade;`);
  }

}
