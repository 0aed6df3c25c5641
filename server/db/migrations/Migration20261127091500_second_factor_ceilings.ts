import { Migration } from '@mikro-orm/migrations';

/**
 * Second-factor code ceilings that hold whatever the client address (issue 35): codes counted per log-in challenge
 * and per account per hour, when the lock's warning was mailed, and the mailed unlock link (its SHA-256 only).
 */
export class Migration20261127091500_second_factor_ceilings extends Migration {

  override name = 'Migration20261127091500_second_factor_ceilings';

  override up(): void | Promise<void> {
    this.addSql(`alter table "users" add "second_factor_challenge_codes" int not null default 0, add "second_factor_failures" int not null default 0, add "second_factor_failures_since" timestamptz null, add "second_factor_lock_mailed_at" timestamptz null, add "second_factor_unlock_hash" varchar(64) null, add "second_factor_unlock_expires_at" timestamptz null;`);
    this.addSql(`alter table "users" add constraint "users_second_factor_unlock_hash_unique" unique ("second_factor_unlock_hash");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "users" drop constraint "users_second_factor_unlock_hash_unique";`);
    this.addSql(`alter table "users" drop column "second_factor_challenge_codes", drop column "second_factor_failures", drop column "second_factor_failures_since", drop column "second_factor_lock_mailed_at", drop column "second_factor_unlock_hash", drop column "second_factor_unlock_expires_at";`);
  }

}
