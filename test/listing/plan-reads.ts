/**
 * What a list call reads, from PostgreSQL's own plans: the SQL MikroORM sent
 * for the call (captured by its onQuery hook) run again under EXPLAIN
 * ANALYZE with the same parameters, and each scan of the table read (or of
 * one of its indexes) with the rows it touched. The bounded-plans tests
 * assert on these.
 */
import type { TestService } from '../support/service';
import { nodesOf, type PlanNode } from '../support/query-plans';

interface Captured {
  sql: string;
  params: readonly unknown[];
}

/** Rows (or index entries) a scan node read: what it returned and what its filter or recheck threw away, on every loop. */
export const readBy = (node: PlanNode) => ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 1);

/** Runs `call` and returns the statements MikroORM sent for it that read `table`. */
async function statementsOf(service: TestService, table: string, call: () => Promise<unknown>): Promise<Captured[]> {
  const config = service.services.db.root.config;
  const captured: Captured[] = [];
  config.set('onQuery', (sql: string, params: readonly unknown[]) => {
    captured.push({ sql, params });
    return sql;
  });
  try {
    await call();
  } finally {
    config.set('onQuery', (sql: string) => sql);
  }
  return captured.filter((statement) => new RegExp(`from "${table}"`).test(statement.sql));
}

/** EXPLAIN ANALYZE of a captured statement, run as MikroORM ran it (its parameters formatted the same way). */
async function planOf(service: TestService, statement: Captured): Promise<PlanNode> {
  const em = service.services.db.fork();
  const [row] = await em.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`explain (analyze, format json) ${statement.sql}`, [...statement.params]);
  return row!['QUERY PLAN'][0].Plan;
}

export interface Reads {
  sql: string;
  seqScans: string[];
  /** The most rows any one scan of the table (or its indexes) read. */
  mostRead: number;
  isTotal: boolean;
  forms: number;
}

/** What each statement a list call made read of `table`. */
export async function readsOf(service: TestService, table: string, call: () => Promise<unknown>): Promise<Reads[]> {
  const reads: Reads[] = [];
  for (const statement of await statementsOf(service, table, call)) {
    const nodes = nodesOf(await planOf(service, statement));
    const scans = nodes.filter((node) => node['Node Type'].includes('Scan') && (node['Relation Name'] === table || node['Index Name']?.startsWith(`${table}_`)));
    reads.push({
      sql: statement.sql,
      seqScans: nodes.filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === table).map((node) => node['Node Type']),
      mostRead: Math.max(0, ...scans.map(readBy)),
      isTotal: statement.sql.startsWith('select count(*)'),
      forms: (statement.sql.match(/ union /g) ?? []).length + 1,
    });
  }
  return reads;
}
