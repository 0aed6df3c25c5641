/**
 * What this environment can do for a test (sandbox.readiness): the gateways
 * simulators play here and which methods have a working route. Keyed under
 * 'gateways' so a change on the gateways page refreshes it.
 */
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';

export function useReadiness(environmentId: string) {
  return useQuery({
    queryKey: ['gateways', 'readiness', environmentId],
    queryFn: () => api.sandbox.readiness.query({ environmentId }),
    staleTime: 30_000,
  });
}
