import { Migration } from '@mikro-orm/migrations';

/**
 * The reconciliation status (domain/reconciliation/status.ts) reads at most
 * 10,001 entries per count and the first `limit` items of each table, for
 * one environment or the whole platform: partial indexes, small because only
 * unfinished or lost rows carry these times. The platform's due order is the
 * existing reconcile_due index.
 */
export class Migration20261127124716_reconciliation_status_indexes extends Migration {

  override name = 'Migration20261127124716_reconciliation_status_indexes';

  override up(): void | Promise<void> {
    for (const table of ['payments', 'subscriptions']) {
      this.addSql(`create index "${table}_environment_reconcile_due_index" on "${table}" ("environment_id", "reconcile_at") where "reconcile_at" is not null;`);
      this.addSql(`create index "${table}_environment_lost_index" on "${table}" ("environment_id", "gateway_missing_at") where "gateway_missing_at" is not null;`);
      this.addSql(`create index "${table}_lost_index" on "${table}" ("gateway_missing_at") where "gateway_missing_at" is not null;`);
    }
  }

  override down(): void | Promise<void> {
    for (const table of ['payments', 'subscriptions']) {
      this.addSql(`drop index "${table}_environment_reconcile_due_index";`);
      this.addSql(`drop index "${table}_environment_lost_index";`);
      this.addSql(`drop index "${table}_lost_index";`);
    }
  }

}
