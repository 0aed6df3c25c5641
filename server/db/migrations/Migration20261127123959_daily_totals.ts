import { Migration } from '@mikro-orm/migrations';

/**
 * The home overview's rollup (domain/listing/overview.ts): per environment,
 * kind (payment or subscription), UTC day of creation and current status,
 * how many there are and their summed amount. The overview reads days x
 * statuses rows of it, whatever the tables hold.
 *
 * Kept by a trigger on payments and subscriptions rather than by the code
 * that changes them: payments are inserted and their status changed in many
 * places (creates, syncs, inbound webhooks, reconciliation, the sandbox
 * simulators, the demo seed, SQL in benchmarks and tests), and a trigger runs
 * for every one of them in the change's own transaction, so the rollup can be
 * neither bypassed nor left behind by a rollback. An update moves a row's
 * contribution from its old (environment, day, status) to its new one; a
 * delete takes it away.
 *
 * Concurrency: each change adds to its rollup row with INSERT ... ON CONFLICT
 * DO UPDATE, so concurrent changes of one environment, day and status queue
 * on that row's lock until each commits (exact, never lost). A merchant's
 * busiest day and status is one hot row: acceptable at this scale (one short
 * row update per payment change); beyond it the row would be split in shards
 * summed by the reader. The two rows an update touches are taken in key
 * order, so two changes in opposite directions cannot deadlock.
 *
 * The backfill (same transaction, after the trigger exists: creating the
 * trigger locks the tables against writes until the migration commits) makes
 * an upgraded database show the same numbers as before.
 */
const KINDS = [
  { table: 'payments', kind: 'payment' },
  { table: 'subscriptions', kind: 'subscription' },
] as const;

/** The rollup counted from the rows (into an empty daily_totals): what upgrading computes once, and what the trigger keeps equal. */
export const backfillDailyTotals = (): string[] =>
  KINDS.map(
    ({ table, kind }) => `insert into "daily_totals" ("environment_id", "kind", "day", "status", "count", "amount")
      select "environment_id", '${kind}', ("created_at" at time zone 'UTC')::date, "status", count(*), coalesce(sum("amount"), 0) from "${table}" group by 1, 2, 3, 4;`,
  );

export class Migration20261127123959_daily_totals extends Migration {

  override name = 'Migration20261127123959_daily_totals';

  override up(): void | Promise<void> {
    this.addSql(`create table "daily_totals" ("environment_id" varchar(255) not null, "kind" text not null, "day" date not null, "status" text not null, "count" bigint not null default 0, "amount" bigint not null default 0, primary key ("environment_id", "kind", "day", "status"));`);
    this.addSql(`create function "daily_totals_add"(p_environment_id text, p_kind text, p_day date, p_status text, p_count bigint, p_amount bigint) returns void language plpgsql as $$
begin
  insert into "daily_totals" as t ("environment_id", "kind", "day", "status", "count", "amount")
  values (p_environment_id, p_kind, p_day, p_status, p_count, p_amount)
  on conflict ("environment_id", "kind", "day", "status") do update set "count" = t."count" + excluded."count", "amount" = t."amount" + excluded."amount";
end $$;`);
    // TG_ARGV[0] names the kind ('payment' or 'subscription').
    this.addSql(`create function "daily_totals_keep"() returns trigger language plpgsql as $$
declare
  old_day date;
  new_day date;
begin
  if tg_op = 'INSERT' then
    perform "daily_totals_add"(new."environment_id", tg_argv[0], (new."created_at" at time zone 'UTC')::date, new."status", 1, new."amount");
    return null;
  end if;
  old_day := (old."created_at" at time zone 'UTC')::date;
  if tg_op = 'DELETE' then
    perform "daily_totals_add"(old."environment_id", tg_argv[0], old_day, old."status", -1, -old."amount");
    return null;
  end if;
  new_day := (new."created_at" at time zone 'UTC')::date;
  if (old."environment_id", old_day, old."status", old."amount") is not distinct from (new."environment_id", new_day, new."status", new."amount") then
    return null;
  end if;
  if (old."environment_id", old_day, old."status") <= (new."environment_id", new_day, new."status") then
    perform "daily_totals_add"(old."environment_id", tg_argv[0], old_day, old."status", -1, -old."amount");
    perform "daily_totals_add"(new."environment_id", tg_argv[0], new_day, new."status", 1, new."amount");
  else
    perform "daily_totals_add"(new."environment_id", tg_argv[0], new_day, new."status", 1, new."amount");
    perform "daily_totals_add"(old."environment_id", tg_argv[0], old_day, old."status", -1, -old."amount");
  end if;
  return null;
end $$;`);
    for (const { table, kind } of KINDS) {
      this.addSql(`create trigger "${table}_daily_totals" after insert or delete or update of "environment_id", "created_at", "status", "amount" on "${table}" for each row execute function "daily_totals_keep"('${kind}');`);
    }
    for (const statement of backfillDailyTotals()) this.addSql(statement);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "payments_daily_totals" on "payments";`);
    this.addSql(`drop trigger if exists "subscriptions_daily_totals" on "subscriptions";`);
    this.addSql(`drop function if exists "daily_totals_keep"();`);
    this.addSql(`drop function if exists "daily_totals_add"(text, text, date, text, bigint, bigint);`);
    this.addSql(`drop table if exists "daily_totals";`);
  }

}
