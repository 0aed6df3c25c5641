import { defineEntity, p } from '@mikro-orm/core';
import { TEXT_LIMITS } from '../../contract/limits';
import { randomToken } from '../../contract/ids';
import { Environment } from './environment';

/**
 * A merchant's receiver of outbound events, in one environment
 * (and so one project). The signing secret is shown once and kept sealed with
 * the master key, since every delivery needs it back to sign.
 *
 * After a rotation with an overlap, the secret it replaced is kept sealed
 * too, until `previousSecretExpiresAt`: deliveries fixed before then carry a
 * signature with each secret, so a receiver can add the new secret before
 * dropping the old one. Only the most recent previous secret is kept.
 */
export const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  indexes: [{ properties: ['environment', 'enabled'] }],
  properties: {
    id: p.string().primary().onCreate(() => `whe_${randomToken(24)}`),
    environment: () => p.manyToOne(Environment),
    url: p.string().length(TEXT_LIMITS.url),
    /** Event types this endpoint receives; empty means every type. */
    enabledEvents: p.json<string[]>(),
    enabled: p.boolean().default(true),
    /**
     * Automatic retries (decision 23), off unless the merchant turns them on: a delivery failed by timeout, network
     * error or 5xx is attempted again on WEBHOOK_RETRY_SCHEDULE; off, spec 6.6 holds (one attempt, then FAILED).
     */
    retries: p.boolean().default(false),
    description: p.string().length(TEXT_LIMITS.description).nullable(),
    /** The signing secret sealed with the master key (domain/secret-box.ts); never stored in plaintext. */
    secretSealed: p.text(),
    secretRotatedAt: p.datetime().nullable(),
    /** The secret replaced by the last rotation, sealed like the current one, while it still signs. */
    previousSecretSealed: p.text().nullable(),
    /** Deliveries fixed from this instant on are signed with the current secret only. */
    previousSecretExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export class WebhookEndpoint extends WebhookEndpointSchema.class {
  /** Whether an event of this type is fanned out to this endpoint. */
  receives(type: string): boolean {
    return this.enabledEvents.length === 0 || this.enabledEvents.includes(type);
  }
}
WebhookEndpointSchema.setClass(WebhookEndpoint);
