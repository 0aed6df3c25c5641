/**
 * How one kind of resource is registered at its gateway: shared by
 * create-once.ts, lease.ts and routing/fallback.ts. Payments and
 * subscriptions take the defaults; a refund plugs in its own rule
 * (refunds/registration.ts): only a pending refund is taken over, a vanished
 * one was a refund its gateway cannot make, and a take-over calls the
 * payment's gateway once, with no routing.
 */
import type { EntityClass } from '@mikro-orm/core';
import type { GatewayName } from '../../contract/enums';
import type { EntityManager } from '../../db/orm';
import type { OneRowReader } from '../../db/one-row';
import type { GatewayAdapter } from '../../gateways';
import type { Services } from '../../services';
import type { DomainEvent } from '../events';
import type { Route } from '../routing/directory';
import type { GatewayResource } from './columns';
import type { CompanionInsert } from './commit';

export interface RegistrationSteps<T extends GatewayResource, R, S> extends LeaseRule<T> {
  /** Reads the resource by (externalId, environment id). */
  byExternalId: OneRowReader<T>;
  /** Sends the create request to the gateway. */
  call(adapter: GatewayAdapter, request: R): Promise<S>;
  /** Takes the gateway's answer into a resource not registered yet and returns the events it causes. */
  register(resource: T, snapshot: S): DomainEvent[];
  /** What else a registration records in the same statement (a payment: the month's usage; a refund: its payment's refunded total). */
  companions?(resource: T): CompanionInsert[];
  /**
   * How a take-over (its lease held) calls the gateway the row names with the request it stored. By default the
   * routing loop with that one gateway, which records the attempt in the resource's trace (routing/fallback.ts).
   */
  takeOver?(context: { em: EntityManager; services: Services }, resource: T, route: Route, request: R): Promise<T>;
}

/** What the lease asks of a kind of resource (lease.ts). */
export interface LeaseRule<T extends GatewayResource> {
  entity: EntityClass<T>;
  /** What else a row must be for its lease to be taken over, besides having no gateway reference (a refund: still pending). */
  takeable?: Record<string, unknown>;
  /**
   * The answer to a request that waited for a row that is gone. By default the gateway refused the request that held
   * it, which freed the externalId (400 invalid_input).
   */
  vanished?(gateway: GatewayName): Error;
}
