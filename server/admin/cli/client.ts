import { createTRPCClient, httpLink } from '@trpc/client';
import type { AdminRouter } from '../router';

/** A typed client of the internal operator API of a running service. */
export function adminClient(baseUrl: string, token: string) {
  return createTRPCClient<AdminRouter>({
    links: [httpLink({ url: `${baseUrl.replace(/\/$/, '')}/internal/trpc`, headers: { authorization: `Bearer ${token}` } })],
  });
}
export type AdminClient = ReturnType<typeof adminClient>;
