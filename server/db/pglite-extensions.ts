/**
 * The PostgreSQL extensions the migrations create, as PGlite loads them
 * (each is a WASM module it must be given when the database opens, or
 * `create extension` fails): pg_trgm serves the lists' name search, unaccent
 * its comparison without accents (search_text, migration search_forms_indexes).
 */
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';

export const PGLITE_EXTENSIONS = { pg_trgm, unaccent };
