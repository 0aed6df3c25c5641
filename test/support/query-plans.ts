/** PostgreSQL's EXPLAIN (FORMAT JSON) plans, for the tests that prove a read is bounded by an index (issue 39). */

/** A node of a plan, with what EXPLAIN ANALYZE adds (rows each loop returned and threw away). */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** A node and every node below it. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
