/**
 * `Authorization: Bearer <credential>`, read one way everywhere (API keys,
 * the admin token). The scheme name is case-insensitive (RFC 7235: `bearer`,
 * `BEARER`); exactly one space separates it from the credential, which has no
 * spaces of its own.
 */
const BEARER = /^bearer ([^\s]+)$/i;

/** The credential of a bearer Authorization header; null when the header is absent or not exactly that. */
export function bearerCredential(authorization: string | undefined): string | null {
  return BEARER.exec(authorization ?? '')?.[1] ?? null;
}
