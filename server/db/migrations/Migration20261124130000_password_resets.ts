import { Migration } from '@mikro-orm/migrations';

export class Migration20261124130000_password_resets extends Migration {

  override name = 'Migration20261124130000_password_resets';

  override up(): void | Promise<void> {
    this.addSql(`create table "password_resets" ("id" varchar(255) not null, "user_id" varchar(255) not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "password_resets" add constraint "password_resets_token_hash_unique" unique ("token_hash");`);
    this.addSql(`alter table "password_resets" add constraint "password_resets_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "password_resets" cascade;`);
  }

}
