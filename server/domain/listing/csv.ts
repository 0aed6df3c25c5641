/**
 * CSV as RFC 4180 writes it (comma-separated, CRLF line ends, a field with a
 * comma, quote or line break in double quotes with its quotes doubled), and
 * safe to open in a spreadsheet: a cell beginning with `=`, `+`, `-`, `@`,
 * a tab or a carriage return would be read as a formula (CSV injection), so
 * it gets a leading apostrophe and reads as the text it is. Merchant text
 * (externalId, customer name and e-mail) reaches these files.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  // Numbers are ours (amounts, counts): never a formula, a negative one stays a number.
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (cells: readonly (string | number | boolean | null | undefined)[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** Cents as major units with two decimals (`2500` → `25.00`), as the dashboard shows amounts. */
export const majorUnits = (cents: number): string => {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};

/*
 * The same cells written by PostgreSQL (the export's COPY, listing/copy-export.ts): each an expression of text, so
 * COPY's CSV writer quotes exactly as csvCell does (a field with a comma, quote, CR or LF; quotes doubled). What
 * COPY does differently is made equal here: it writes an empty string as "" (to tell it from NULL) where csvCell
 * writes nothing, so an empty text is NULL; a boolean is cast to text (`true`, as String gives it, not COPY's `t`).
 * Its line ends (LF) are made CRLF by listing/crlf.ts.
 */

/**
 * A text expression as csvCell writes it: empty as nothing, a formula's start defused with an apostrophe. Written
 * inline (the expression twice) rather than as a subquery, which PostgreSQL would run once per cell.
 */
export const sqlCell = (text: string): string =>
  `(case when left(${text}, 1) in ('=', '+', '-', '@', chr(9), chr(13)) then '''' || ${text} else nullif(${text}, '') end)`;

/** majorUnits of a bigint of cents: exact, since cents over 100 have at most two decimals (`-250` → `-2.50`). */
export const sqlMajorUnits = (cents: string): string => `((${cents})::numeric / 100)::numeric(20, 2)::text`;

/** An instant as toISOString writes it: UTC, milliseconds (truncated, as a JavaScript Date holds them), `Z`. */
export const sqlInstant = (at: string): string => `to_char((${at}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
