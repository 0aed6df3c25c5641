/** Customer fields as every gateway wants them on the wire. */

/** Phones arrive in any format ("(11) 98765-4321"); gateways take digits. null when there are none. */
export function phoneDigits(phone: string | null | undefined): string | null {
  const digits = (phone ?? '').replace(/\D/g, '');
  return digits === '' ? null : digits;
}
