import { Migration } from '@mikro-orm/migrations';

export class Migration20261122114828_webhook_secret_overlap extends Migration {

  override name = 'Migration20261122114828_webhook_secret_overlap';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_endpoints" add "previous_secret_sealed" text null, add "previous_secret_expires_at" timestamptz null;`);

    this.addSql(`alter table "webhook_deliveries" add "signed_with" jsonb null;`);
    this.addSql(`alter table "webhook_deliveries" alter column "signature" type text using ("signature"::text);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop column "signed_with";`);
    this.addSql(`alter table "webhook_deliveries" alter column "signature" type varchar(80) using ("signature"::varchar(80));`);

    this.addSql(`alter table "webhook_endpoints" drop column "previous_secret_sealed", drop column "previous_secret_expires_at";`);
  }

}
