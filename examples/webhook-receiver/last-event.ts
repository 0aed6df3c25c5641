/**
 * Where the receiver remembers the id of the last event it processed, so
 * that after downtime it reads what it missed from GET /v1/events (the
 * service retries failed deliveries only for endpoints that turned automatic
 * retries on, and only for about a day). A file here; a real
 * shop keeps it in its database, next to the processed event ids.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';

export interface LastEventStore {
  read(): Promise<string | undefined>;
  write(eventId: string): Promise<void>;
}

export function lastEventFile(path: string): LastEventStore {
  return {
    async read() {
      try {
        const text = (await readFile(path, 'utf8')).trim();
        return text === '' ? undefined : text;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async write(eventId) {
      // Written aside and renamed: a crash mid-write never leaves half an id.
      await writeFile(`${path}.tmp`, `${eventId}\n`);
      await rename(`${path}.tmp`, path);
    },
  };
}

/** In memory, for tests. */
export function lastEventInMemory(initial?: string): LastEventStore & { current(): string | undefined } {
  let value = initial;
  return {
    read: async () => value,
    write: async (eventId) => {
      value = eventId;
    },
    current: () => value,
  };
}
