import { defineEntity, p } from '@mikro-orm/core';
import { TEXT_LIMITS } from '../../contract/limits';
import { GATEWAY_NAMES } from '../../contract/enums';
import { randomToken } from '../../contract/ids';
import { Environment } from './environment';

/** One gateway's configuration in one environment: where it is, whether it is on, and its sealed credentials. */
export const GatewayAccountSchema = defineEntity({
  name: 'GatewayAccount',
  tableName: 'gateway_accounts',
  uniques: [{ properties: ['environment', 'gateway'] }],
  properties: {
    id: p.string().primary().onCreate(() => `gwa_${randomToken(24)}`),
    environment: () => p.manyToOne(Environment),
    gateway: p.enum(GATEWAY_NAMES),
    enabled: p.boolean().default(true),
    baseUrl: p.string().length(TEXT_LIMITS.url),
    /** Gateway credentials as JSON sealed with the master key (domain/secret-box.ts); never stored in plaintext. */
    credentialsSealed: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export class GatewayAccount extends GatewayAccountSchema.class {}
GatewayAccountSchema.setClass(GatewayAccount);
