/**
 * A resource its gateway no longer knows (a read by its reference answered
 * not found). Asking again will not bring it back, so it is recorded once,
 * logged at warn for operators, and taken off the reconciliation schedule;
 * operators find it among the resources the gateway lost.
 */
import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';
import type { GatewayResource } from '../registration/columns';

export async function recordLostAtGateway<T extends GatewayResource>(em: EntityManager, services: Pick<Services, 'log' | 'now'>, entity: EntityClass<T>, resource: T): Promise<void> {
  const recorded = await em.fork().nativeUpdate(
    entity,
    { id: resource.id, gatewayMissingAt: null } as never,
    { gatewayMissingAt: services.now(), reconcileAt: null, reconcileLeaseUntil: null } as never,
  );
  if (recorded === 1) {
    services.log.warn(
      { resourceId: resource.id, gateway: resource.gateway, gatewayRef: resource.gatewayRef },
      'the gateway no longer knows this resource; it is no longer reconciled and is listed for operators',
    );
  }
}
