import { Migration } from '@mikro-orm/migrations';

/** Decision 28: a notification about an attempt a fallback abandoned finds its payment by the orphan's reference in the routing trace. */
export class Migration20261127094248_orphan_refs_index extends Migration {

  override name = 'Migration20261127094248_orphan_refs_index';

  override up(): void | Promise<void> {
    this.addSql(`create index "payments_orphan_refs_index" on "payments" using gin ((jsonb_path_query_array("routing_trace", '$.attempts[*].orphanRef')));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "payments_orphan_refs_index";`);
  }

}
