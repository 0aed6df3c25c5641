import { Migration } from '@mikro-orm/migrations';

/**
 * The daily rollup (migration daily_totals) kept per statement instead of per
 * row: the same numbers, without the row triggers' cost on bulk writes.
 *
 * Statement-level triggers with transition tables: each statement adds its
 * rows once per (environment, day, status) it touched, so a bulk INSERT ...
 * SELECT of 200,000 rows makes a few dozen rollup updates, not 200,000 updates
 * of the same few rows in one transaction (quadratic: every version of a row
 * updated in an open transaction stays in its chain). PostgreSQL allows no
 * column list with transition tables, so every UPDATE statement on these
 * tables runs the trigger; it joins old and new rows by id and writes only
 * when one of environment, creation day, status or amount changed.
 *
 * Concurrency: each statement adds to its rollup rows with INSERT ... ON
 * CONFLICT DO UPDATE, so concurrent changes of one environment, day and
 * status queue on that row's lock until each commits (exact, never lost). A
 * merchant's busiest day and status is one hot row: acceptable at this scale
 * (one short row update per payment change); beyond it the row would be split
 * in shards summed by the reader. Rows are written in key order, so two
 * changes in opposite directions cannot deadlock on them.
 *
 * Replacing the triggers locks the tables against writes until the
 * migration commits, so no change is counted twice or missed in between.
 */
const KINDS = [
  { table: 'payments', kind: 'payment' },
  { table: 'subscriptions', kind: 'subscription' },
] as const;

export class Migration20261127130816_daily_totals_per_statement extends Migration {

  override name = 'Migration20261127130816_daily_totals_per_statement';

  override up(): void | Promise<void> {
    for (const table of ['payments', 'subscriptions']) this.addSql(`drop trigger "${table}_daily_totals" on "${table}";`);
    this.addSql(`drop function "daily_totals_keep"();`);
    this.addSql(`drop function "daily_totals_add"(text, text, date, text, bigint, bigint);`);
    // TG_ARGV[0] names the kind ('payment' or 'subscription'); new_rows and old_rows are the statement's transition tables.
    this.addSql(`create function "daily_totals_keep"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into "daily_totals" as t ("environment_id", "kind", "day", "status", "count", "amount")
    select "environment_id", tg_argv[0], ("created_at" at time zone 'UTC')::date, "status", count(*), coalesce(sum("amount"), 0)
    from new_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict ("environment_id", "kind", "day", "status") do update set "count" = t."count" + excluded."count", "amount" = t."amount" + excluded."amount";
  elsif tg_op = 'DELETE' then
    insert into "daily_totals" as t ("environment_id", "kind", "day", "status", "count", "amount")
    select "environment_id", tg_argv[0], ("created_at" at time zone 'UTC')::date, "status", -count(*), -coalesce(sum("amount"), 0)
    from old_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict ("environment_id", "kind", "day", "status") do update set "count" = t."count" + excluded."count", "amount" = t."amount" + excluded."amount";
  else
    insert into "daily_totals" as t ("environment_id", "kind", "day", "status", "count", "amount")
    select "environment_id", tg_argv[0], "day", "status", sum("count"), sum("amount") from (
      select o."environment_id", (o."created_at" at time zone 'UTC')::date as "day", o."status", -1 as "count", -o."amount" as "amount"
      from old_rows o join new_rows n on n."id" = o."id"
      where (o."environment_id", o."created_at", o."status", o."amount") is distinct from (n."environment_id", n."created_at", n."status", n."amount")
      union all
      select n."environment_id", (n."created_at" at time zone 'UTC')::date, n."status", 1, n."amount"
      from old_rows o join new_rows n on n."id" = o."id"
      where (o."environment_id", o."created_at", o."status", o."amount") is distinct from (n."environment_id", n."created_at", n."status", n."amount")
    ) as moved
    group by 1, 2, 3, 4 having sum("count") <> 0 or sum("amount") <> 0 order by 1, 2, 3, 4
    on conflict ("environment_id", "kind", "day", "status") do update set "count" = t."count" + excluded."count", "amount" = t."amount" + excluded."amount";
  end if;
  return null;
end $$;`);
    for (const { table, kind } of KINDS) {
      this.addSql(`create trigger "${table}_daily_totals_insert" after insert on "${table}" referencing new table as new_rows for each statement execute function "daily_totals_keep"('${kind}');`);
      this.addSql(`create trigger "${table}_daily_totals_update" after update on "${table}" referencing old table as old_rows new table as new_rows for each statement execute function "daily_totals_keep"('${kind}');`);
      this.addSql(`create trigger "${table}_daily_totals_delete" after delete on "${table}" referencing old table as old_rows for each statement execute function "daily_totals_keep"('${kind}');`);
    }
  }

  override down(): void | Promise<void> {
    // Leaves no trigger: the rollup is kept again only by migrating down past daily_totals and up again.
    for (const { table } of KINDS) {
      for (const operation of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "${table}_daily_totals_${operation}" on "${table}";`);
    }
  }

}
