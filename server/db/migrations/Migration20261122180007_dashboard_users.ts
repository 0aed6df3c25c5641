import { Migration } from '@mikro-orm/migrations';

export class Migration20261122180007_dashboard_users extends Migration {

  override name = 'Migration20261122180007_dashboard_users';

  override up(): void | Promise<void> {
    this.addSql(`create table "users" ("id" varchar(255) not null, "email" varchar(254) not null, "password_hash" varchar(255) not null, "platform_operator" boolean not null default false, "disabled_at" timestamptz null, "password_changed_at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(`create table "memberships" ("id" varchar(255) not null, "user_id" varchar(255) not null, "organization_id" varchar(255) not null, "role" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "memberships_organization_id_index" on "memberships" ("organization_id");`);
    this.addSql(`alter table "memberships" add constraint "memberships_user_id_organization_id_unique" unique ("user_id", "organization_id");`);

    this.addSql(`create table "invitations" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "email" varchar(254) not null, "role" text not null, "token_hash" varchar(64) not null, "invited_by_id" varchar(255) null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "accepted_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "invitations" add constraint "invitations_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "invitations_organization_id_accepted_at_index" on "invitations" ("organization_id", "accepted_at");`);

    this.addSql(`create table "dashboard_sessions" ("id" varchar(255) not null, "user_id" varchar(255) not null, "token_hash" varchar(64) not null, "user_agent" varchar(255) null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "dashboard_sessions" add constraint "dashboard_sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "dashboard_sessions_user_id_revoked_at_index" on "dashboard_sessions" ("user_id", "revoked_at");`);

    this.addSql(`alter table "memberships" add constraint "memberships_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
    this.addSql(`alter table "memberships" add constraint "memberships_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id");`);
    this.addSql(`alter table "memberships" add constraint "memberships_role_check" check ("role" in ('owner', 'developer', 'viewer'));`);

    this.addSql(`alter table "invitations" add constraint "invitations_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id");`);
    this.addSql(`alter table "invitations" add constraint "invitations_invited_by_id_foreign" foreign key ("invited_by_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "invitations" add constraint "invitations_role_check" check ("role" in ('owner', 'developer', 'viewer'));`);

    this.addSql(`alter table "dashboard_sessions" add constraint "dashboard_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "memberships" drop constraint "memberships_user_id_foreign";`);
    this.addSql(`alter table "invitations" drop constraint "invitations_invited_by_id_foreign";`);
    this.addSql(`alter table "dashboard_sessions" drop constraint "dashboard_sessions_user_id_foreign";`);

    this.addSql(`drop table if exists "users" cascade;`);
    this.addSql(`drop table if exists "memberships" cascade;`);
    this.addSql(`drop table if exists "invitations" cascade;`);
    this.addSql(`drop table if exists "dashboard_sessions" cascade;`);
  }

}
