/**
 * DATA_DIR holds the embedded database and, outside production, the local
 * admin token and master key: readable by the service's own user only. A
 * folder made by an earlier version (or by hand) with wider rights is
 * tightened at start.
 */
import { chmodSync, mkdirSync } from 'node:fs';

export function ensurePrivateFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}
