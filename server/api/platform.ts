import { z } from 'zod';
import { AuthTest, Health } from '../contract/schemas/platform';
import { authedProcedure, publicProcedure } from './procedures';
import { routeErrors } from './route-errors';

export const health = publicProcedure
  .meta({
    openapi: { method: 'GET', path: '/v1/health', tags: ['platform'], summary: 'Liveness check', description: 'No authentication; touches neither storage nor gateways.', protect: false },
    errors: [],
  })
  .input(z.void())
  .output(Health)
  .query(() => ({ ok: true as const, service: 'service-payments' as const }));

export const authTest = authedProcedure
  .meta({
    openapi: { method: 'GET', path: '/v1/auth/test', tags: ['platform'], summary: 'Check an API key', description: 'Validates the API key and tells which organization, project and environment it belongs to. Does not consume the payment rate limits and calls no gateway.', protect: true },
    errors: routeErrors(null),
  })
  .input(z.void())
  .output(AuthTest)
  .query(({ ctx }) => {
    const { organization, project, environment, apiKey } = ctx.principal;
    return {
      ok: true as const,
      organization: { id: organization.id },
      project: { id: project.id },
      environment: { id: environment.id, kind: environment.kind },
      apiKey: { id: apiKey.id },
    };
  });
