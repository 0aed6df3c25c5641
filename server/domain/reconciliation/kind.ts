import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';

/** One kind of resource as reconciliation reads it (payments and subscriptions in reconciler.ts, refunds in refunds/reconcile.ts). */
export interface ReconciledKind {
  name: 'payment' | 'subscription' | 'refund';
  entity: EntityClass<object>;
  /**
   * Reads the resource from its gateway (or finishes its registration); answers what the next read needs to know:
   * `lateWatchUntil` when it ended without its gateway's word and is read on the late schedule until then (decision 28).
   */
  read(em: EntityManager, services: Services, id: string): Promise<{ final: boolean; pixExpiresAt: Date | null; lateWatchUntil?: Date | null } | null>;
}
