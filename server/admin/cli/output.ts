/** Human output is `key: value` lines (tables for lists); `--json` prints the raw result for scripts. */
export function printResult(result: unknown, asJson: boolean): void {
  if (asJson) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  if (Array.isArray(result)) {
    if (result.length === 0) process.stdout.write('(none)\n');
    else console.table(result);
    return;
  }
  for (const [field, value] of Object.entries((result ?? {}) as Record<string, unknown>)) {
    process.stdout.write(`${field}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}\n`);
  }
}
