import { z } from 'zod';
import { ENVIRONMENT_KINDS } from '../enums';
import { PublicId } from './common';

export const Health = z
  .object({ ok: z.literal(true), service: z.literal('service-payments') })
  .meta({ id: 'Health' });

export const AuthTest = z
  .object({
    ok: z.literal(true),
    organization: z.object({ id: PublicId('org') }),
    project: z.object({ id: PublicId('prj') }),
    environment: z.object({ id: PublicId('env'), kind: z.enum(ENVIRONMENT_KINDS) }),
    apiKey: z.object({ id: PublicId('key') }),
  })
  .meta({ id: 'AuthTest' });
