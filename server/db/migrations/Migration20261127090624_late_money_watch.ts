import { Migration } from '@mikro-orm/migrations';

/**
 * Late money is looked for (decision 28): how a payment ended when not by its gateway's word, and until when
 * reconciliation keeps reading it (its next read is reconcile_at, on the existing partial index of due reads).
 */
export class Migration20261127090624_late_money_watch extends Migration {

  override name = 'Migration20261127090624_late_money_watch';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payments" add "ended_by" text null, add "late_watch_until" timestamptz null;`);
    this.addSql(`alter table "payments" add constraint "payments_ended_by_check" check ("ended_by" in ('clock', 'service'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payments" drop constraint "payments_ended_by_check";`);
    this.addSql(`alter table "payments" drop column "ended_by", drop column "late_watch_until";`);
  }

}
