import { defineEntity, p } from '@mikro-orm/core';
import { TEXT_LIMITS } from '../../contract/limits';
import { newId } from '../../contract/ids';
import { Environment } from './environment';

/** Per-key overrides of the rate limits (requests per minute), keyed by rate-limit bucket. */
export type RateLimitOverrides = Partial<Record<string, number>>;

export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary().onCreate(() => newId('key')),
    environment: () => p.manyToOne(Environment),
    name: p.string().length(TEXT_LIMITS.name).nullable(),
    /** SHA-256 of the whole secret key; the key itself is shown once and never stored. */
    keyHash: p.string().length(64).unique(),
    /** Non-secret visible beginning of the key (`sk_test_ab12`), to recognise it in listings. */
    displayPrefix: p.string().length(32),
    rateLimits: p.json<RateLimitOverrides>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});

export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);
