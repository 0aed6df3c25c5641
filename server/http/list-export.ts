/**
 * `GET /internal/export/payments.csv?environmentId=env_…[&status=…&search=…&sort=…]`
 * and `GET /internal/export/subscriptions.csv?…`: the dashboard's "Export
 * CSV" of a list, with exactly the list's filter and order (the same input
 * names and schema as payments.list / subscriptions.list, without the page).
 *
 * Who may: the dashboard's session, authenticated by internal-api.ts's own
 * `dashboardCaller` (the same cookie, session, roles and refusals); reading
 * the list's environment is all it needs, as for the list. It is a plain GET
 * link the browser downloads, so it carries no CSRF header: it changes
 * nothing, the cookie is SameSite=Strict and a cross-site Origin is refused.
 *
 * The file is streamed (domain/listing/export.ts) with the response's
 * backpressure, in constant memory at any size: on PostgreSQL the database
 * writes the CSV and its bytes are passed on; on PGlite it is read and
 * written a batch at a time. An error before the first byte is answered in
 * the contract's shape; after it, the transfer is aborted, so a cut file
 * never looks complete. A browser that goes away stops the export.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { environmentAccess } from '../operator/access';
import { PaymentExportInput, SubscriptionExportInput } from '../contract/operator/listing';
import { answer, operatorAnswerOf } from '../operator/operator-answers';
import { exportPayments, exportSubscriptions } from '../domain/listing/export';
import type { Database } from '../db/orm';
import type { ExportOutput } from '../domain/listing/copy-export';
import type { Services } from '../services';
import { dashboardCaller } from './internal-api';
import { sendOperatorAnswer as send } from './operator-errors';

export const EXPORT_PATH = '/internal/export';

/** The query as the list's input: every parameter once, `refunded=true` the only non-text one. */
function inputOf(req: Request): Record<string, unknown> {
  const query = req.url.indexOf('?');
  const params = new URLSearchParams(query >= 0 ? req.url.slice(query + 1) : '');
  const input: Record<string, unknown> = {};
  for (const [name, value] of params) input[name] = name in input ? [input[name], value].flat() : name === 'refunded' && value === 'true' ? true : value;
  return input;
}

/** `payments-acme-shop-sandbox-2026-11-25.csv`: the list, the project and environment it is of, the day (UTC). */
const fileName = (list: string, project: string, kind: string, now: Date) =>
  `${[list, project, kind].map((part) => part.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'x').join('-')}-${now.toISOString().slice(0, 10)}.csv`;

/**
 * Where the export writes: each chunk resolves once the socket takes more; rejects, as the signal aborts, once the
 * browser went away before the end (so the export stops reading, and on PostgreSQL its COPY is cancelled).
 */
function outputTo(res: Response): ExportOutput {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort(new Error('the client closed the download'));
  });
  const write = (chunk: string | Buffer) =>
    new Promise<void>((resolve, reject) => {
      if (gone.signal.aborted || res.destroyed) return reject(new Error('the client closed the download'));
      if (res.write(chunk)) return resolve();
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        return gone.signal.aborted ? reject(new Error('the client closed the download')) : resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  return { write, signal: gone.signal };
}

type Exporter<F> = (db: Database, filter: F, out: ExportOutput) => Promise<void>;

function exportRoute<F>(services: Services, list: 'payments' | 'subscriptions', schema: z.ZodType<F>, run: Exporter<F>): RequestHandler {
  const authenticate = dashboardCaller(services, { csrf: false });
  return async (req, res) => {
    const log = req.log ?? services.log;
    try {
      const refusal = await authenticate(req, res);
      if (refusal) return send(res, refusal);
      const caller = req.operatorCaller!;
      const filter = schema.parse(inputOf(req));
      const environment = await environmentAccess({ actor: caller.actor, em: services.db.fork() }, (filter as { environmentId: string }).environmentId, 'read');
      res.status(200);
      res.setHeader('content-type', 'text/csv; charset=utf-8');
      res.setHeader('content-disposition', `attachment; filename="${fileName(list, environment.project.name, environment.kind, services.now())}"`);
      res.setHeader('cache-control', 'no-store');
      await run(services.db, filter, outputTo(res));
      res.end();
    } catch (error) {
      if (res.headersSent) {
        log.warn({ err: error, list }, 'CSV export stopped');
        res.destroy();
        return;
      }
      const reply = operatorAnswerOf(error);
      if (!reply) log.error({ err: error, list }, 'CSV export failed');
      send(res, reply ?? answer('internal_error'));
    }
  };
}

export function listExport(services: Services): Router {
  const router = Router();
  router.get(`${EXPORT_PATH}/payments.csv`, exportRoute(services, 'payments', PaymentExportInput, exportPayments));
  router.get(`${EXPORT_PATH}/subscriptions.csv`, exportRoute(services, 'subscriptions', SubscriptionExportInput, exportSubscriptions));
  return router;
}
