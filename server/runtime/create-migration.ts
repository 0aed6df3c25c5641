/**
 * Generates a migration from the difference between the entities and the
 * schema the committed migrations produce, on a throwaway in-memory database.
 * Usage: npm run db:migration:create -- <name>
 */
import './require-node';
import { MikroORM } from '@mikro-orm/pglite';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES } from '../domain/entities';
import { MIGRATIONS } from '../db/migrations';
import { PGLITE_EXTENSIONS } from '../db/pglite-extensions';

const name = process.argv[2];
if (!name || !/^[a-z0-9-]+$/.test(name)) {
  console.error('usage: npm run db:migration:create -- <name-in-kebab-case>');
  process.exit(2);
}
const orm = await MikroORM.init({
  entities: ENTITIES,
  extensions: [Migrator],
  dbName: 'memory://',
  driverOptions: { extensions: PGLITE_EXTENSIONS },
  migrations: { migrationsList: MIGRATIONS, path: 'server/db/migrations', emit: 'ts', snapshot: false },
});
await orm.migrator.up();
const result = await orm.migrator.create(undefined, false, false, name);
console.log(result.fileName ? `created ${result.fileName}` : 'no schema changes');
await orm.close(true);
