/**
 * What an audit snapshot may never hold: key secrets, webhook signing
 * secrets, gateway credential values, password hashes, TOTP secrets, tokens.
 * Call sites already pass views without them; this is the second line, so a
 * view that grows a secret later still never reaches the log. A secret field
 * keeps its name and becomes a marker: `set`, `changed` (after, when it
 * differs from before) or null.
 */
import type { AuditSnapshot } from '../../db/entities/audit-entry';

/** Field names whose values are secret (case-insensitive, anywhere in the name: `signingSecret`, `keyHash`, `credentials`…). */
const SECRET_FIELD = /secret|password|credential|token|hash|totp(?!enabled|required)|sealed|privatekey/i;

export type SecretMarker = 'set' | 'changed' | null;

function marker(value: unknown, previous: unknown, hasPrevious: boolean): SecretMarker | Record<string, SecretMarker> {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' && (value === 'set' || value === 'changed')) return value;
  // A map of credentials keeps its field names: which are set is useful, their values are not.
  if (typeof value === 'object' && !Array.isArray(value)) {
    const before = previous && typeof previous === 'object' ? (previous as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, inner]) => [key, marker(inner, before[key], hasPrevious && key in before) as SecretMarker]));
  }
  return hasPrevious && previous !== undefined && previous !== null && JSON.stringify(previous) !== JSON.stringify(value) ? 'changed' : 'set';
}

function redactValue(value: unknown, previous: unknown, hasPrevious: boolean): unknown {
  if (Array.isArray(value)) return value.map((item, index) => redactValue(item, Array.isArray(previous) ? previous[index] : undefined, hasPrevious));
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === 'object') {
    const before = previous && typeof previous === 'object' ? (previous as Record<string, unknown>) : {};
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, inner]) =>
        SECRET_FIELD.test(key) ? [key, marker(inner, before[key], hasPrevious && key in before)] : [key, redactValue(inner, before[key], hasPrevious && key in before)],
      ),
    );
  }
  return value;
}

/** A snapshot safe to store; `previous` (the before snapshot, unredacted) lets a secret read `changed` rather than `set`. */
export function redactSnapshot(snapshot: AuditSnapshot | null | undefined, previous?: AuditSnapshot | null): AuditSnapshot | null {
  if (!snapshot) return null;
  return redactValue(snapshot, previous ?? undefined, Boolean(previous)) as AuditSnapshot;
}
