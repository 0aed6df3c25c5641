/**
 * The express application: request logging, the generated contract, the
 * internal operator API, and /v1 served by trpc-to-openapi over the tRPC
 * procedures, with every error rewritten into the contract's body.
 */
import express, { type ErrorRequestHandler } from 'express';
import { createOpenApiExpressMiddleware } from 'trpc-to-openapi';
import { stringify as toYaml } from 'yaml';
import { operatorHttpHandler } from './internal-api';
import { listExport } from './list-export';
import { v1Router } from '../api/router';
import { ApiError, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../contract/errors';
import { unreachableDatabaseReason } from '../db/unreachable';
import { buildOpenApiDocument } from '../contract/openapi';
import type { Services } from '../services';
import { createContextFactory } from '../api/context';
import { LISTEN_PATH } from '../contract/listen-protocol';
import { webhookListenStream } from './listen-stream';
import { contractErrorBodies } from './error-bodies';
import { dashboardStatic } from './dashboard-static';
import { docsPage } from './docs-page';
import { originFormOnly } from './edge';
import { isUnexpected, toApiError } from './error-translation';
import './express-augment';
import { inboundWebhooks } from './inbound-webhooks';
import { jsonBody } from './json-body';
import { httpMetrics, METRICS_PATH, metricsEndpoint } from './metrics';
import { pinInputCoercion } from './no-coercion';
import { probes, type Readiness } from './probes';
import { requestLog } from './request-log';
import { securityHeaders } from './security-headers';

pinInputCoercion(v1Router);

const successStatusByPath = new Map<string, number>(
  Object.entries(v1Router._def.procedures).map(([path, procedure]) => [
    path,
    (procedure as { _def: { meta?: { successStatus?: number } } })._def.meta?.successStatus ?? 200,
  ]),
);

export function createApp(services: Services, options: { adminToken: string; readiness: Readiness }): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // Behind a reverse proxy, req.ip is the client's address only when the proxy is trusted (TRUST_PROXY).
  app.set('trust proxy', services.config.trustProxy);
  // First, so every answer is counted and timed, refusals by later middleware included.
  app.use(httpMetrics());
  app.use(requestLog(services.log));
  app.use(securityHeaders(services.publicUrl));
  app.use(originFormOnly);
  probes(app, options.readiness);
  app.get(METRICS_PATH, metricsEndpoint(options.adminToken));

  // Built on first use: with PORT=0 the address the document names is known only once the port is bound.
  let contract: { json: string; yaml: string } | undefined;
  const served = () => {
    if (!contract) {
      const document = buildOpenApiDocument(v1Router, services.publicUrl());
      contract = { json: JSON.stringify(document, null, 2), yaml: toYaml(document) };
    }
    return contract;
  };
  app.get('/v1/openapi.json', (_req, res) => void res.type('application/json').send(served().json));
  app.get('/v1/openapi.yaml', (_req, res) => void res.type('application/yaml').send(served().yaml));
  docsPage(app);
  app.use(dashboardStatic());

  const createContext = createContextFactory(services);
  app.use('/internal/trpc', operatorHttpHandler(services, options.adminToken));
  app.use(listExport(services));
  app.get(LISTEN_PATH, webhookListenStream(services, options.adminToken));

  app.use(inboundWebhooks(services));

  app.use(jsonBody(services.config.maxBodyBytes));
  app.use(contractErrorBodies);
  app.use(
    createOpenApiExpressMiddleware({
      router: v1Router,
      createContext,
      maxBodySize: services.config.maxBodyBytes,
      onError: ({ error, req }) => {
        const apiError = toApiError(error);
        (req as express.Request).apiError = apiError;
        if (isUnexpected(apiError)) (req as express.Request).log.error({ err: error.cause ?? error }, 'unexpected failure');
      },
      responseMeta: ({ errors, paths }) => {
        if (errors[0]) return { status: toApiError(errors[0]).status };
        return { status: successStatusByPath.get(paths?.[0] ?? '') ?? 200 };
      },
    }),
  );

  // Anything that escaped the adapter: answer in the contract's shape, leak nothing.
  const lastResort: ErrorRequestHandler = (error, req, res, _next) => {
    if (res.headersSent) return res.end();
    // A request express itself refused (a path parameter that is not valid percent-encoding, a body it could not read).
    const status = Number((error as { status?: unknown })?.status);
    if (status >= 400 && status < 500) {
      req.log.warn({ err: error }, 'malformed request refused');
      res.status(400).json(new ApiError('invalid_input', { issues: [{ path: [], message: 'malformed request' }] }).toBody());
      return;
    }
    if (unreachableDatabaseReason(error)) {
      // The database out of reach (decision 24): the request's own log line says so; nothing to add here.
      req.apiError = toApiError(error);
      res.status(503).set('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS)).json(req.apiError.toBody());
      return;
    }
    (req.log ?? services.log).error({ err: error }, 'unhandled error');
    res.status(500).json(new ApiError('internal_error').toBody());
  };
  app.use(lastResort);
  return app;
}
