/**
 * A statement as a span may show it: MikroORM inlines the parameters into the SQL it sends (customers' names and
 * e-mails, sealed credentials), so every literal becomes `?`, as no log line of ours ever shows a value either.
 */
export function statementShape(sql: string): string {
  return sql
    .replace(/\$(\w*)\$[\s\S]*?\$\1\$/g, '?')
    .replace(/(?:\b[eE])?'(?:[^']|'')*'/g, '?')
    .replace(/\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b/gi, '?')
    .slice(0, 4_000);
}

/**
 * A Redis command as a span may show it: its name and one `?` per argument. The keys themselves are personal data
 * (the log-in throttle's hold a dashboard user's e-mail address and the client's address), and the values counters;
 * the instrumentation's default would show the key.
 */
export function redisCommandShape(name: string, args: readonly unknown[]): string {
  return [name, ...args.map(() => '?')].join(' ');
}
