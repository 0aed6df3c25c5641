/**
 * The reconciliation backlog, read when Prometheus scrapes: unfinished
 * resources whose read from their gateway is due or overdue, the age of the
 * oldest of them, and the resources their gateway no longer knows. A growing
 * age means the per-gateway budget or the gateway cannot keep up.
 */
import type { Database } from '../db/orm';
import { reconciliationStatus } from '../domain/reconciliation/status';
import { registerCollectedGauge } from './metrics';

/** Registers the gauges on this service's database; returns their unregistration (at shutdown). */
export function registerReconciliationBacklog(db: Database, now: () => Date): () => void {
  // One scrape reads the three gauges: one query serves them all.
  let last: { at: number; status: ReturnType<typeof reconciliationStatus> } | null = null;
  const read = () => {
    if (!last || Date.now() - last.at > 1_000) last = { at: Date.now(), status: reconciliationStatus(db.fork(), now(), { environmentId: null, limit: 1 }) };
    return last.status;
  };
  const unregister = [
    registerCollectedGauge({
      name: 'reconciliation_overdue_resources',
      help: 'Unfinished payments and subscriptions whose read from their gateway is due or overdue (exact up to 10,000; above, 10,000: the status counts no further).',
      collect: async () => (await read()).overdue,
    }),
    registerCollectedGauge({
      name: 'reconciliation_oldest_overdue_age_seconds',
      help: 'How long the most overdue reconciliation read has waited (0: nothing is overdue).',
      collect: async () => {
        const oldest = (await read()).oldestOverdueAt;
        return oldest ? Math.max(0, (now().getTime() - Date.parse(oldest)) / 1000) : 0;
      },
    }),
    registerCollectedGauge({
      name: 'reconciliation_lost_resources',
      help: 'Payments and subscriptions their gateway answered it does not know (listed for operators, no longer read; exact up to 10,000).',
      collect: async () => (await read()).lost,
    }),
  ];
  return () => unregister.forEach((off) => off());
}
