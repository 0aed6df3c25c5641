import type { Request, Response } from 'express';
import type {} from 'pino-http';
import type { Logger } from 'pino';
import type { ApiKey, Environment, Organization, Project } from '../db/entities';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';

/** What an authenticated /v1 request acts as: the key, and the tenancy it belongs to. */
export interface Principal {
  apiKey: ApiKey;
  environment: Environment;
  project: Project;
  organization: Organization;
}

export interface Context {
  req: Request;
  res: Response;
  log: Logger;
  /** A fresh unit of work for this request. */
  em: EntityManager;
  services: Services;
}

export function createContextFactory(services: Services) {
  return ({ req, res }: { req: Request; res: Response }): Context => ({
    req,
    res,
    log: req.log ?? services.log,
    em: services.db.fork(),
    services,
  });
}
