import { Migration } from '@mikro-orm/migrations';

/** TOTP second factor: per user (sealed secret, recovery code hashes, replay step, log-in challenge), per session, and an organization's requirement. */
export class Migration20261125160600_second_factor extends Migration {

  override name = 'Migration20261125160600_second_factor';

  override up(): void | Promise<void> {
    this.addSql(`alter table "users" add "second_factor_sealed" text null, add "second_factor_pending_sealed" text null, add "second_factor_enabled_at" timestamptz null, add "second_factor_last_step" bigint null, add "recovery_code_hashes" jsonb null, add "second_factor_challenge_hash" varchar(64) null, add "second_factor_challenge_expires_at" timestamptz null;`);
    this.addSql(`alter table "organizations" add "require_second_factor" boolean not null default false;`);
    this.addSql(`alter table "dashboard_sessions" add "second_factor_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "dashboard_sessions" drop column "second_factor_at";`);
    this.addSql(`alter table "organizations" drop column "require_second_factor";`);
    this.addSql(`alter table "users" drop column "second_factor_sealed", drop column "second_factor_pending_sealed", drop column "second_factor_enabled_at", drop column "second_factor_last_step", drop column "recovery_code_hashes", drop column "second_factor_challenge_hash", drop column "second_factor_challenge_expires_at";`);
  }

}
