import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes of the payments list's filters no index served whole, and of the
 * search forms support uses (domain/listing/search.ts, issues 39 and 40).
 *
 * - A gateway alone, a method alone, newest first: a filter on the
 *   (environment, created_at, id) rows read page / (the value's share) rows,
 *   and a value few payments have (a gateway just added, a fallback one) read
 *   the whole environment for the total's 10,001. With the value in the
 *   index, a page reads its rows and a total its 10,001 entries. Neither
 *   column changes once a payment exists: an entry per insert. Subscriptions
 *   filter by gateway only.
 * - search_text(): what a name is compared by, lower case without accents
 *   ("Joao" finds "João"), IMMUTABLE so a generated column can hold it.
 *   unaccent() is STABLE only because its dictionary could be edited; the
 *   wrapper names the dictionary (schema-qualified, so a search_path cannot
 *   change it) and the dictionary is never edited here. Each name is kept
 *   normalized on write in customer_name_search (a stored generated column),
 *   and the trigram indexes move there from lower(name): a search compares
 *   the stored text, where evaluating search_text() on each row read cost
 *   ~23 µs a row (230 ms for the 10,001 rows a common name's total reads).
 * - Support's forms, payments only: the card's last 4 and the customer
 *   document's last 4 (exact, few rows each); the e-mail's domain
 *   ("@uol.com.br", a prefix); a metadata value (exact, any key: a GIN of
 *   the values, as the orphan refs one). The gateway's reference is served
 *   by the existing (gateway, gateway_ref) index, one probe per gateway.
 */
export class Migration20261127195327_search_forms_indexes extends Migration {

  override name = 'Migration20261127195327_search_forms_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "payments_environment_id_gateway_created_at_id_index" on "payments" ("environment_id", "gateway", "created_at", "id");`);
    this.addSql(`create index "payments_environment_id_method_created_at_id_index" on "payments" ("environment_id", "method", "created_at", "id");`);
    this.addSql(`create index "subscriptions_environment_id_gateway_created_at_id_index" on "subscriptions" ("environment_id", "gateway", "created_at", "id");`);

    this.addSql(`create extension if not exists unaccent with schema public;`);
    this.addSql(`create or replace function public.search_text(value text) returns text language sql immutable strict parallel safe
      as $$ select lower(public.unaccent('public.unaccent'::regdictionary, value)) $$;`);
    this.addSql(`drop index if exists "payments_customer_name_trgm_index";`);
    this.addSql(`drop index if exists "subscriptions_customer_name_trgm_index";`);
    for (const table of ['payments', 'subscriptions']) {
      this.addSql(`alter table "${table}" add column "customer_name_search" text generated always as (public.search_text("customer_name")) stored;`);
      this.addSql(`create index "${table}_customer_name_search_index" on "${table}" using gin ("customer_name_search" gin_trgm_ops);`);
    }

    this.addSql(`create index "payments_card_last4_index" on "payments" ("environment_id", "card_last4") where "card_last4" is not null;`);
    this.addSql(`create index "payments_customer_document_last4_index" on "payments" ("environment_id", "customer_document_last4") where "customer_document_last4" is not null;`);
    this.addSql(`create index "payments_customer_email_domain_index" on "payments" ("environment_id", lower(split_part("customer_email", '@', 2)) text_pattern_ops);`);
    this.addSql(`create index "payments_metadata_values_index" on "payments" using gin ((jsonb_path_query_array("metadata", '$.*')) jsonb_path_ops) where "metadata" is not null;`);
    // What the planner knows of a metadata value's share: without statistics on the expression it guesses 0.5 % of
    // rows for any value, so it walked the newest payments for a rare one (200,000 rows read at 200,000 payments for an
    // order number) and could sort every match of a common one. ANALYZE fills them.
    this.addSql(`create statistics "payments_metadata_values_stats" on (jsonb_path_query_array("metadata", '$.*')) from "payments";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop statistics if exists "payments_metadata_values_stats";`);
    for (const index of [
      'payments_environment_id_gateway_created_at_id_index', 'payments_environment_id_method_created_at_id_index', 'subscriptions_environment_id_gateway_created_at_id_index',
      'payments_customer_name_search_index', 'subscriptions_customer_name_search_index',
      'payments_card_last4_index', 'payments_customer_document_last4_index', 'payments_customer_email_domain_index', 'payments_metadata_values_index',
    ]) this.addSql(`drop index if exists "${index}";`);
    this.addSql(`create index "payments_customer_name_trgm_index" on "payments" using gin (lower("customer_name") gin_trgm_ops);`);
    this.addSql(`create index "subscriptions_customer_name_trgm_index" on "subscriptions" using gin (lower("customer_name") gin_trgm_ops);`);
    this.addSql(`alter table "payments" drop column if exists "customer_name_search";`);
    this.addSql(`alter table "subscriptions" drop column if exists "customer_name_search";`);
    this.addSql(`drop function if exists public.search_text(text);`);
  }

}
