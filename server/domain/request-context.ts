import type { EntityManager } from '../db/orm';
import type { Services } from '../services';
import type { Principal } from './principal';

/**
 * What a domain operation acts with: a unit of work, the service's
 * collaborators, and the caller's tenancy. The API key itself matters only at
 * the /v1 edge (rate limits), so operator tools can act for an environment
 * without one.
 */
export interface RequestContext {
  em: EntityManager;
  services: Services;
  principal: Pick<Principal, 'environment' | 'project' | 'organization'>;
}
