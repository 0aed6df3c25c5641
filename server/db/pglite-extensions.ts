/**
 * The PostgreSQL extensions the migrations create, as PGlite loads them
 * (each is a WASM module it must be given when the database opens, or
 * `create extension` fails): pg_trgm serves the lists' name search.
 */
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

export const PGLITE_EXTENSIONS = { pg_trgm };
