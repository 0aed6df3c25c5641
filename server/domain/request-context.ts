import type { EntityManager } from '../db/orm';
import type { Principal } from '../http/context';
import type { Services } from '../services';

/** What a domain operation acts with: a unit of work, the service's collaborators, and the caller's tenancy. */
export interface RequestContext {
  em: EntityManager;
  services: Services;
  principal: Principal;
}
