/**
 * What the CLI prints. `--json` prints the raw result and nothing else on
 * stdout, for scripts (`payments-admin --json org list | jq .`). People get
 * `key: value` lines for one resource and compact tables for lists, cut to
 * the terminal's width: long ids and URLs are shortened in the middle,
 * timestamps drop their milliseconds. The full data is always in `--json`.
 */

/** Which fields a list shows to people, in order, with their column titles (default: every field). */
export type Columns = Record<string, string>;

export interface OutputOptions {
  asJson: boolean;
  columns?: Columns;
  /** Terminal width (default: the terminal's, else $COLUMNS, else 120). */
  width?: number;
  write?: (text: string) => void;
}

export function terminalWidth(): number {
  if (process.stdout.isTTY && process.stdout.columns) return process.stdout.columns;
  const fromEnv = Number(process.env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv >= 20 ? fromEnv : 120;
}

export function printResult(result: unknown, options: OutputOptions): void {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  if (options.asJson) {
    write(`${JSON.stringify(result ?? null, null, 2)}\n`);
    return;
  }
  write(formatHuman(result, options.columns, options.width ?? terminalWidth()));
}

export function formatHuman(result: unknown, columns: Columns | undefined, width: number): string {
  if (Array.isArray(result)) return result.length === 0 ? '(none)\n' : renderTable(result as Record<string, unknown>[], columns, width);
  if (result === null || typeof result !== 'object') return `${String(result)}\n`;
  const entries = Object.entries(result as Record<string, unknown>);
  const label = Math.max(...entries.map(([field]) => field.length), 0);
  let text = '';
  for (const [field, value] of entries) {
    if (Array.isArray(value) && value.length > 0 && value.every((item) => item && typeof item === 'object')) {
      // A nested list (a delivery's attempts): its own indented table.
      text += `${field}:\n`;
      text += renderTable(value as Record<string, unknown>[], undefined, Math.max(width - 2, 40))
        .split('\n')
        .map((line) => (line ? `  ${line}` : line))
        .join('\n');
      continue;
    }
    text += `${`${field}:`.padEnd(label + 2)}${cellText(value, false)}\n`;
  }
  return text;
}

const ISO_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/;

/** An inline image (a Pix QR code) is thousands of characters no terminal reader wants: its kind and size stand for it; --json has it whole. */
const DATA_URL = /^data:([\w/+.-]+)[;,]/;
function summarized(value: string): string {
  const data = DATA_URL.exec(value);
  return data && value.length > 120 ? `(${data[1]}, ${value.length.toLocaleString('en-US')} characters; --json shows it)` : value;
}
const withSummaries = (_key: string, value: unknown) => (typeof value === 'string' ? summarized(value) : value);

function cellText(value: unknown, compact = true): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') {
    const time = ISO_TIME.exec(value);
    if (time && compact) return `${time[1]} ${time[2]}`;
    return summarized(value).replace(/\s+/g, ' ');
  }
  if (Array.isArray(value)) return value.length === 0 ? '[]' : value.every((item) => typeof item !== 'object' || item === null) ? value.join(',') : JSON.stringify(value, withSummaries);
  if (typeof value === 'object') {
    const text = JSON.stringify(value, withSummaries);
    return text === '{}' ? '-' : text;
  }
  return String(value);
}

type Kind = 'id' | 'url' | 'time' | 'text';

const kindOf = (key: string, cells: string[]): Kind => {
  if (key === 'id' || key.endsWith('Id') || key.endsWith('Prefix')) return 'id';
  if (/url$/i.test(key) || cells.some((cell) => /^https?:\/\//.test(cell))) return 'url';
  if (cells.every((cell) => cell === '-' || /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(cell))) return 'time';
  return 'text';
};

/** Shortens a value to `width` characters: ids and URLs keep their start and end, text its start. */
export function shorten(value: string, width: number, kind: Kind): string {
  if (value.length <= width) return value;
  if (width <= 1) return '…'.slice(0, width);
  if (kind === 'text') return `${value.slice(0, width - 1)}…`;
  const tail = Math.floor((width - 1) / 2);
  return `${value.slice(0, width - 1 - tail)}…${value.slice(value.length - tail)}`;
}

const GAP = '  ';

/**
 * Columns keep their full width when they can; free text and URLs give way
 * first (down to a readable minimum), then columns are left out from the
 * right (the less important end), and only as a last resort is the first
 * column (the id) shortened. A note says what was left out.
 */
export function renderTable(rows: Record<string, unknown>[], columns: Columns | undefined, width: number): string {
  const keys = columns ? Object.keys(columns) : [...new Set(rows.flatMap((row) => Object.keys(row ?? {})))];
  const headers = keys.map((key) => columns?.[key] ?? key);
  const cells = rows.map((row) => keys.map((key) => cellText(row?.[key])));
  const kinds = keys.map((key, i) => kindOf(key, cells.map((row) => row[i]!)));
  const natural = keys.map((_, i) => Math.max(headers[i]!.length, ...cells.map((row) => row[i]!.length)));
  const floor = (i: number) => (kinds[i] === 'text' || kinds[i] === 'url' ? Math.min(natural[i]!, Math.max(headers[i]!.length, 12)) : natural[i]!);

  let shown = keys.map((_, i) => i);
  let widths: number[] = [];
  for (;;) {
    widths = shown.map((i) => natural[i]!);
    const total = () => widths.reduce((sum, w) => sum + w, 0) + GAP.length * (widths.length - 1);
    while (total() > width) {
      let widest = -1;
      for (let j = 0; j < widths.length; j += 1) if (widths[j]! > floor(shown[j]!) && (widest < 0 || widths[j]! > widths[widest]!)) widest = j;
      if (widest < 0) break;
      widths[widest] = widths[widest]! - 1;
    }
    if (total() <= width || shown.length === 1) {
      if (shown.length === 1) widths[0] = Math.max(8, Math.min(widths[0]!, width));
      break;
    }
    shown = shown.slice(0, -1);
  }
  const line = (values: string[], kindsToo: boolean) =>
    shown
      .map((i, j) => shorten(values[i]!, widths[j]!, kindsToo ? kinds[i]! : 'text').padEnd(widths[j]!))
      .join(GAP)
      .trimEnd();
  const hidden = keys.length > shown.length ? [shorten(`(not shown: ${headers.slice(shown.length).join(', ')}; see --json)`, width, 'text')] : [];
  return `${[line(headers, false), ...cells.map((row) => line(row, true)), ...hidden].join('\n')}\n`;
}
