/**
 * Statement spans for the embedded PGlite database, with tracing on. PGlite
 * runs in this process with no driver that OpenTelemetry instruments (the pg
 * instrumentation covers PostgreSQL), so each statement is wrapped where
 * MikroORM runs it: `Connection.executeQuery` (MikroORM 7.2, pinned; the
 * traces test fails if that seam moves). Like the pg spans: only inside a
 * trace, and the statement without its values.
 */
import type { Database } from '../db/orm';
import { statementShape } from './statement-shape';
import { tracing } from './trace-seam';

type ExecuteQuery = (query: string, run: () => Promise<unknown>, context?: { query?: unknown }) => Promise<unknown>;

export function traceEmbeddedStatements(db: Database): void {
  // Every fork shares the root's connection.
  const connection = db.root.getConnection() as unknown as { executeQuery?: ExecuteQuery };
  const original = connection.executeQuery;
  if (typeof original !== 'function') return;
  connection.executeQuery = function (this: unknown, query, run, context) {
    // `context.query` is the statement before MikroORM inlined its parameters; the logged text may have them inlined.
    const text = statementShape(typeof context?.query === 'string' ? context.query : query);
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    return tracing.inSpan(`pglite ${operation}`, { 'db.system.name': 'postgresql', 'db.query.text': text }, () => original.call(this, query, run, context), { onlyInTrace: true });
  };
}
