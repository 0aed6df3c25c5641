/**
 * The columns every resource registered at a gateway shares (payments and
 * subscriptions): where it lives, who it is for, what the gateway calls it,
 * and the registration lease of create-once. Declared once here and spread
 * into each aggregate's entity; `GatewayResource` is read from them.
 */
import { p, type InferEntityFromProperties, type Opt } from '@mikro-orm/core';
import { GATEWAY_NAMES } from '../../contract/enums';
import { TEXT_LIMITS } from '../../contract/limits';
import { Environment } from '../../db/entities';
import type { RoutingTrace } from '../routing/trace';

/** The first background read of a new resource, a minute after it was created. */
export const FIRST_RECONCILIATION_MS = 60_000;

export const registrationColumns = {
  environment: () => p.manyToOne(Environment),
  externalId: p.string().length(TEXT_LIMITS.externalId),
  gateway: p.enum(GATEWAY_NAMES),
  amount: p.bigint('number'),
  currency: p.string().length(3).default('BRL'),
  /** What the gateway calls this resource; null until the gateway has accepted the create. */
  gatewayRef: p.string().length(255).nullable(),
  checkoutUrl: p.text().nullable(),
  customerName: p.string().length(TEXT_LIMITS.customerName).nullable(),
  customerEmail: p.string().length(TEXT_LIMITS.customerEmail).nullable(),
  customerDocumentLast4: p.string().length(4).nullable(),
  metadata: p.json<Record<string, unknown>>().nullable(),
  /** The gateway's last raw status word, for support. */
  gatewayStatus: p.string().length(64).nullable(),
  /** SHA-256 of the normalized create request, to notice a repeated externalId with a different payload. */
  requestHash: p.string().length(64),
  /**
   * The create request as the gateway needs it (full document included), sealed with the master key,
   * kept only until the gateway has registered the resource so an interrupted create can be completed.
   */
  pendingRequestSealed: p.text().nullable(),
  /** While set and in the future, one request is calling the gateway to register this resource. */
  registrationLeaseUntil: p.datetime().nullable(),
  createdAt: p.datetime().onCreate(() => new Date()),
  updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  /**
   * The moment of the newest gateway report applied: a webhook's own event
   * time, or when a sync or reconciliation read the gateway. An inbound
   * webhook older than it is stale (decision 17) and moves no status.
   */
  gatewaySeenAt: p.datetime().nullable(),
  /** When background reconciliation reads this resource from its gateway next; null once there is nothing left to find out (final). */
  reconcileAt: p.datetime().nullable().onCreate(() => new Date(Date.now() + FIRST_RECONCILIATION_MS)),
  /** How many reconciliation reads were made: the step of the schedule. */
  reconcileChecks: p.integer().default(0),
  /** When reconciliation last read this resource from its gateway. */
  reconciledAt: p.datetime().nullable(),
  /** While in the future, one node is reading this resource for reconciliation. */
  reconcileLeaseUntil: p.datetime().nullable(),
  /** When the gateway answered that it does not know this resource (not found); surfaced to operators, never retried. */
  gatewayMissingAt: p.datetime().nullable(),
  /** How routing chose the gateway (decision 21): operators only, never the public resource. */
  routingTrace: p.json<RoutingTrace>().nullable(),
};

type RegistrationColumns = InferEntityFromProperties<typeof registrationColumns>;

/** A payment or subscription as far as its registration at a gateway is concerned. */
export type GatewayResource = Pick<RegistrationColumns, 'environment' | 'gateway' | 'gatewayRef' | 'reconcileAt' | 'registrationLeaseUntil' | 'pendingRequestSealed' | 'requestHash'> & {
  id: string;
  readonly isRegistered: Opt<boolean>;
};
