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
