/** How one kind of resource is registered at its gateway: shared by create-once.ts and routing/fallback.ts. */
import type { EntityClass } from '@mikro-orm/core';
import type { OneRowReader } from '../../db/one-row';
import type { GatewayAdapter } from '../../gateways';
import type { DomainEvent } from '../events';
import type { GatewayResource } from './columns';
import type { CompanionInsert } from './commit';

export interface RegistrationSteps<T extends GatewayResource, R, S> {
  entity: EntityClass<T>;
  /** Reads the resource by (externalId, environment id). */
  byExternalId: OneRowReader<T>;
  /** Sends the create request to the gateway. */
  call(adapter: GatewayAdapter, request: R): Promise<S>;
  /** Takes the gateway's answer into a resource not registered yet and returns the events it causes. */
  register(resource: T, snapshot: S): DomainEvent[];
  /** What else a registration records in the same statement (a payment: the month's usage). */
  companions?(resource: T): CompanionInsert[];
}
