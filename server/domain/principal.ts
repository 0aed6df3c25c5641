import type { ApiKey, Environment, Organization, Project } from '../db/entities';

/**
 * Who an authenticated /v1 request acts as: the API key, and the tenancy it
 * belongs to. The plain ids are what most requests need; the entities are
 * managed copies in the request's unit of work, made on first use (a read
 * never needs them, and making them is a good part of a read's CPU).
 */
export interface Principal {
  environmentId: string;
  apiKeyId: string;
  /** The key's own per-route limits, where an operator set them. */
  rateLimits: ApiKey['rateLimits'] | null;
  apiKey: ApiKey;
  environment: Environment;
  project: Project;
  organization: Organization;
}
