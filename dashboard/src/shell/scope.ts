/**
 * Where the person is: the environment in the address (/e/<environmentId>/…),
 * with its project, organization and the project's other environment (the
 * sandbox/production switch). Read from the lists the caller may see.
 */
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api } from '../api/client';

/** The three lists every logged-in page needs first (main.tsx asks for them with the session when the address is such a page). */
export const tenancyQueries = {
  organizations: { queryKey: ['organizations', 'list'], queryFn: () => api.organizations.list.query() },
  projects: { queryKey: ['projects', 'list'], queryFn: () => api.projects.list.query({}) },
  environments: { queryKey: ['environments', 'list'], queryFn: () => api.environments.list.query({}) },
};

export function useTenancy() {
  const organizations = useQuery(tenancyQueries.organizations);
  const projects = useQuery(tenancyQueries.projects);
  const environments = useQuery(tenancyQueries.environments);
  return {
    organizations: organizations.data ?? [],
    projects: projects.data ?? [],
    environments: environments.data ?? [],
    isPending: organizations.isPending || projects.isPending || environments.isPending,
    error: organizations.error ?? projects.error ?? environments.error,
  };
}

export type Tenancy = ReturnType<typeof useTenancy>;

export function resolveScope(tenancy: Tenancy, environmentId: string | undefined) {
  const environment = tenancy.environments.find((e) => e.id === environmentId);
  const project = environment && tenancy.projects.find((p) => p.id === environment.projectId);
  const organization = project && tenancy.organizations.find((o) => o.id === project.organizationId);
  const siblings = environment ? tenancy.environments.filter((e) => e.projectId === environment.projectId) : [];
  return { environment, project, organization, siblings };
}

export interface Scope {
  environmentId: string;
  kind: 'sandbox' | 'production';
  projectId: string;
  organizationId: string;
}

/** The scope of a page under /e/:environmentId (the layout renders pages only once it is known). */
export function useScope(): Scope {
  const { environmentId } = useParams();
  const scope = resolveScope(useTenancy(), environmentId);
  if (!scope.environment || !scope.project) throw new Error('useScope outside an environment page');
  return { environmentId: scope.environment.id, kind: scope.environment.kind, projectId: scope.project.id, organizationId: scope.project.organizationId };
}
