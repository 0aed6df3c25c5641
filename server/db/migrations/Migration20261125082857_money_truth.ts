import { Migration } from '@mikro-orm/migrations';

export class Migration20261125082857_money_truth extends Migration {

  override name = 'Migration20261125082857_money_truth';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payments" add "gateway_seen_at" timestamptz null, add "reconcile_at" timestamptz null, add "reconcile_checks" int not null default 0, add "reconciled_at" timestamptz null, add "reconcile_lease_until" timestamptz null, add "gateway_missing_at" timestamptz null, add "paid_at" timestamptz null, add "expires_at" timestamptz null;`);

    this.addSql(`alter table "subscriptions" add "gateway_seen_at" timestamptz null, add "reconcile_at" timestamptz null, add "reconcile_checks" int not null default 0, add "reconciled_at" timestamptz null, add "reconcile_lease_until" timestamptz null, add "gateway_missing_at" timestamptz null;`);

    // Reconciliation reads what is due: only unfinished resources carry a time, so the index stays small.
    this.addSql(`create index "payments_reconcile_due_index" on "payments" ("reconcile_at") where "reconcile_at" is not null;`);
    this.addSql(`create index "subscriptions_reconcile_due_index" on "subscriptions" ("reconcile_at") where "reconcile_at" is not null;`);
    // What existed before: everything unfinished is read back soon; a paid payment's best known paid time is its last change.
    this.addSql(`update "payments" set "reconcile_at" = now() where "status" in ('created', 'pending', 'processing');`);
    this.addSql(`update "subscriptions" set "reconcile_at" = now() where "status" <> 'canceled';`);
    this.addSql(`update "payments" set "paid_at" = "updated_at" where "status" = 'paid';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "payments_reconcile_due_index";`);
    this.addSql(`drop index if exists "subscriptions_reconcile_due_index";`);
    this.addSql(`alter table "payments" drop column "gateway_seen_at", drop column "reconcile_at", drop column "reconcile_checks", drop column "reconciled_at", drop column "reconcile_lease_until", drop column "gateway_missing_at", drop column "paid_at", drop column "expires_at";`);

    this.addSql(`alter table "subscriptions" drop column "gateway_seen_at", drop column "reconcile_at", drop column "reconcile_checks", drop column "reconciled_at", drop column "reconcile_lease_until", drop column "gateway_missing_at";`);
  }

}
