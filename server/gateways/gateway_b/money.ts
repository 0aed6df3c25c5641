/**
 * gateway_b writes amounts as decimal reais strings ("1234.50"). Conversion is
 * string and integer arithmetic only, so no float ever touches a cent.
 */
const REAIS = /^(\d{1,13})\.(\d{2})$/;

export function centsToReais(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError('amount must be a non-negative integer of cents');
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** null unless the text is exactly `<digits>.<two digits>`. */
export function reaisToCents(text: string): number | null {
  const match = REAIS.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number(match[2]);
}
