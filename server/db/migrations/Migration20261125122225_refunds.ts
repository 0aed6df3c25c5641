import { Migration } from '@mikro-orm/migrations';

/**
 * Refunds (decision 18): one row per refund of a paid payment, registered at its gateway like a payment (lease,
 * sealed request, reconciliation columns), unique by externalId per environment; the payment's refunded total.
 */
export class Migration20261125122225_refunds extends Migration {

  override name = 'Migration20261125122225_refunds';

  override up(): void | Promise<void> {
    this.addSql(`create table "refunds" ("id" varchar(255) not null, "environment_id" varchar(255) not null, "payment_id" varchar(255) not null, "external_id" varchar(255) not null, "gateway" text not null, "amount" bigint not null, "currency" varchar(3) not null default 'BRL', "reason" varchar(255) null, "status" text not null default 'pending', "gateway_ref" varchar(255) null, "gateway_status" varchar(64) null, "failure_reason" varchar(255) null, "request_hash" varchar(64) not null, "pending_request_sealed" text null, "registration_lease_until" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "gateway_seen_at" timestamptz null, "reconcile_at" timestamptz null, "reconcile_checks" int not null default 0, "reconciled_at" timestamptz null, "reconcile_lease_until" timestamptz null, "gateway_missing_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "refunds" add constraint "refunds_environment_id_external_id_unique" unique ("environment_id", "external_id");`);
    this.addSql(`create index "refunds_payment_id_created_at_index" on "refunds" ("payment_id", "created_at");`);
    this.addSql(`create index "refunds_gateway_gateway_ref_index" on "refunds" ("gateway", "gateway_ref");`);
    this.addSql(`create index "refunds_environment_id_created_at_id_index" on "refunds" ("environment_id", "created_at", "id");`);
    // Reconciliation reads pending refunds only: only those carry a time, so the index stays small.
    this.addSql(`create index "refunds_reconcile_due_index" on "refunds" ("reconcile_at") where "reconcile_at" is not null;`);
    this.addSql(`alter table "refunds" add constraint "refunds_environment_id_foreign" foreign key ("environment_id") references "environments" ("id");`);
    this.addSql(`alter table "refunds" add constraint "refunds_payment_id_foreign" foreign key ("payment_id") references "payments" ("id");`);
    this.addSql(`alter table "refunds" add constraint "refunds_gateway_check" check ("gateway" in ('gateway_a', 'gateway_b', 'gateway_c'));`);
    this.addSql(`alter table "refunds" add constraint "refunds_status_check" check ("status" in ('pending', 'succeeded', 'failed'));`);
    this.addSql(`alter table "refunds" add constraint "refunds_amount_check" check ("amount" > 0);`);

    this.addSql(`alter table "payments" add "amount_refunded" bigint not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payments" drop column "amount_refunded";`);
    this.addSql(`drop table if exists "refunds" cascade;`);
  }

}
