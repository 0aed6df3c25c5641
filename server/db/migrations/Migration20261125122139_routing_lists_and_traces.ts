import { Migration } from '@mikro-orm/migrations';

/**
 * Routing rules name an ordered list of gateways with optional weights (decision 21); every existing rule becomes the
 * list of its one gateway, which routes exactly as before. The `gateway` column stays: it is the list's first (the
 * primary), so readers of one gateway keep working. Payments and subscriptions keep their routing trace (operators
 * only, never the public resource).
 */
export class Migration20261125122139_routing_lists_and_traces extends Migration {

  override name = 'Migration20261125122139_routing_lists_and_traces';

  override up(): void | Promise<void> {
    this.addSql(`alter table "routing_rules" add "gateways" jsonb null;`);
    this.addSql(`update "routing_rules" set "gateways" = jsonb_build_array(jsonb_build_object('gateway', "gateway", 'weight', null));`);
    this.addSql(`alter table "routing_rules" alter column "gateways" set not null;`);

    this.addSql(`alter table "payments" add "routing_trace" jsonb null;`);
    this.addSql(`alter table "subscriptions" add "routing_trace" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "subscriptions" drop column "routing_trace";`);
    this.addSql(`alter table "payments" drop column "routing_trace";`);
    this.addSql(`alter table "routing_rules" drop column "gateways";`);
  }

}
