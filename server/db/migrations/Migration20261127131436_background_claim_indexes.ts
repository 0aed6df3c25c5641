import { Migration } from '@mikro-orm/migrations';

/**
 * The dispatcher's claim (webhooks/claims.ts) asks each endpoint whether a
 * delivery is in flight: only leased rows carry a lease time, so the partial
 * index holds those and the answer never reads the endpoint's whole queue.
 * Fan-out (webhooks/fan-out.ts) takes the events not fanned out yet in
 * sequence order: a partial index of those, so the planner never walks the
 * sequence index through every event already dispatched (it did, at 400,000
 * dispatched events, to find 100).
 */
export class Migration20261127131436_background_claim_indexes extends Migration {

  override name = 'Migration20261127131436_background_claim_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "webhook_deliveries_endpoint_id_lease_until_index" on "webhook_deliveries" ("endpoint_id", "lease_until") where "lease_until" is not null;`);
    this.addSql(`create index "events_undispatched_sequence_index" on "events" ("sequence") where "dispatched_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "webhook_deliveries_endpoint_id_lease_until_index";`);
    this.addSql(`drop index "events_undispatched_sequence_index";`);
  }

}
