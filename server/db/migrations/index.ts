/** Every committed migration, in order. New ones are generated with `npm run db:migration:create -- <name>`. */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122011935_tenancy } from './Migration20261122011935_tenancy';
import { Migration20261122013558_payments_routing_outbox } from './Migration20261122013558_payments_routing_outbox';
import { Migration20261122013958_webhooks } from './Migration20261122013958_webhooks';
import { Migration20261122014746_subscriptions } from './Migration20261122014746_subscriptions';
import { Migration20261122114828_webhook_secret_overlap } from './Migration20261122114828_webhook_secret_overlap';
import { Migration20261122154826_transaction_usage } from './Migration20261122154826_transaction_usage';
import { Migration20261122180007_dashboard_users } from './Migration20261122180007_dashboard_users';
import { Migration20261122181000_listing_indexes } from './Migration20261122181000_listing_indexes';
import { Migration20261124120000_quota_counters } from './Migration20261124120000_quota_counters';
import { Migration20261124130000_password_resets } from './Migration20261124130000_password_resets';
import { Migration20261125082857_money_truth } from './Migration20261125082857_money_truth';
import { Migration20261125091638_events_feed_indexes } from './Migration20261125091638_events_feed_indexes';
import { Migration20261125093607_webhook_retries } from './Migration20261125093607_webhook_retries';
import { Migration20261125122139_routing_lists_and_traces } from './Migration20261125122139_routing_lists_and_traces';
import { Migration20261125122225_refunds } from './Migration20261125122225_refunds';
import { Migration20261125160600_second_factor } from './Migration20261125160600_second_factor';
import { Migration20261125160500_audit_entries } from './Migration20261125160500_audit_entries';
import { Migration20261125161000_list_search_indexes } from './Migration20261125161000_list_search_indexes';
import { Migration20261127091500_second_factor_ceilings } from './Migration20261127091500_second_factor_ceilings';
import { Migration20261127090624_late_money_watch } from './Migration20261127090624_late_money_watch';
import { Migration20261127094248_orphan_refs_index } from './Migration20261127094248_orphan_refs_index';

export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122011935_tenancy', class: Migration20261122011935_tenancy },
  { name: 'Migration20261122013558_payments_routing_outbox', class: Migration20261122013558_payments_routing_outbox },
  { name: 'Migration20261122013958_webhooks', class: Migration20261122013958_webhooks },
  { name: 'Migration20261122014746_subscriptions', class: Migration20261122014746_subscriptions },
  { name: 'Migration20261122114828_webhook_secret_overlap', class: Migration20261122114828_webhook_secret_overlap },
  { name: 'Migration20261122154826_transaction_usage', class: Migration20261122154826_transaction_usage },
  { name: 'Migration20261122180007_dashboard_users', class: Migration20261122180007_dashboard_users },
  { name: 'Migration20261122181000_listing_indexes', class: Migration20261122181000_listing_indexes },
  { name: 'Migration20261124120000_quota_counters', class: Migration20261124120000_quota_counters },
  { name: 'Migration20261124130000_password_resets', class: Migration20261124130000_password_resets },
  { name: 'Migration20261125082857_money_truth', class: Migration20261125082857_money_truth },
  { name: 'Migration20261125091638_events_feed_indexes', class: Migration20261125091638_events_feed_indexes },
  { name: 'Migration20261125093607_webhook_retries', class: Migration20261125093607_webhook_retries },
  { name: 'Migration20261125122139_routing_lists_and_traces', class: Migration20261125122139_routing_lists_and_traces },
  { name: 'Migration20261125122225_refunds', class: Migration20261125122225_refunds },
  { name: 'Migration20261125160500_audit_entries', class: Migration20261125160500_audit_entries },
  { name: 'Migration20261125160600_second_factor', class: Migration20261125160600_second_factor },
  { name: 'Migration20261125161000_list_search_indexes', class: Migration20261125161000_list_search_indexes },
  { name: 'Migration20261127090624_late_money_watch', class: Migration20261127090624_late_money_watch },
  { name: 'Migration20261127091500_second_factor_ceilings', class: Migration20261127091500_second_factor_ceilings },
  { name: 'Migration20261127094248_orphan_refs_index', class: Migration20261127094248_orphan_refs_index },
];
