/** How amounts and dates read in the dashboard. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '—');
export const formatDate = (iso: string | null | undefined) => (iso ? dateOnly.format(new Date(iso)) : '—');

/** Amounts are integers in the currency's minor unit (cents). */
export function formatAmount(minor: number | null | undefined, currency = 'BRL'): string {
  if (minor == null) return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(minor / 100);
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency}`;
  }
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** "5 minutes ago", "in 40 seconds": in the largest unit that is at least one, rounded toward zero so "1 hour" is never 59 minutes. */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '—';
  const ms = Date.parse(iso) - now;
  for (const [unit, size] of UNITS) if (Math.abs(ms) >= size || unit === 'second') return relative.format(Math.trunc(ms / size), unit);
  return '—';
}
