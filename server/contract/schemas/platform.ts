import { z } from 'zod';
import { ENVIRONMENT_KINDS } from '../enums';

export const Health = z
  .object({ ok: z.literal(true), service: z.literal('service-payments') })
  .meta({ id: 'Health' });

export const AuthTest = z
  .object({
    ok: z.literal(true),
    organization: z.object({ id: z.string() }),
    project: z.object({ id: z.string() }),
    environment: z.object({ id: z.string(), kind: z.enum(ENVIRONMENT_KINDS) }),
    apiKey: z.object({ id: z.string() }),
  })
  .meta({ id: 'AuthTest' });
