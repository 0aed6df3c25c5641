import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log (issue 27, 7a): one row per configuration change, written in the change's own transaction.
 * Append-only: a trigger refuses any UPDATE or DELETE of a row, whoever asks.
 */
export class Migration20261125160500_audit_entries extends Migration {

  override name = 'Migration20261125160500_audit_entries';

  override up(): void | Promise<void> {
    this.addSql(`create table "audit_entries" ("id" varchar(255) not null, "organization_id" varchar(255) null, "environment_id" varchar(255) null, "actor_kind" text not null, "actor_id" varchar(255) null, "actor_email" varchar(255) null, "action" varchar(100) not null, "target_type" varchar(50) not null, "target_id" varchar(255) null, "before" jsonb null, "after" jsonb null, "address" varchar(255) null, "user_agent" text null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "audit_entries_organization_id_created_at_id_index" on "audit_entries" ("organization_id", "created_at", "id");`);
    this.addSql(`create index "audit_entries_created_at_id_index" on "audit_entries" ("created_at", "id");`);
    this.addSql(`alter table "audit_entries" add constraint "audit_entries_actor_kind_check" check ("actor_kind" in ('user', 'operator', 'sandbox_key', 'system'));`);
    this.addSql(`create function "audit_entries_append_only"() returns trigger language plpgsql as $$ begin raise exception 'audit entries are append-only'; end $$;`);
    this.addSql(`create trigger "audit_entries_append_only" before update or delete on "audit_entries" for each row execute function "audit_entries_append_only"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "audit_entries" cascade;`);
    this.addSql(`drop function if exists "audit_entries_append_only"();`);
  }

}
