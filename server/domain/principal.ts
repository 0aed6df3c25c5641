import type { ApiKey, Environment, Organization, Project } from '../db/entities';

/** Who an authenticated /v1 request acts as: the API key, and the tenancy it belongs to. */
export interface Principal {
  apiKey: ApiKey;
  environment: Environment;
  project: Project;
  organization: Organization;
}
