/**
 * A TCP relay in front of PostgreSQL that counts round trips: it reads the
 * frontend protocol the service sends and counts each simple query ('Q') and
 * each extended-protocol batch ending in Sync ('S'): one wait for the
 * server each. It also keeps the statements' text, so a failing count says
 * which statements were sent. It can also cut PostgreSQL off (`cut`: every
 * connection dropped, new ones refused) and let it back (`restore`).
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { createTestDatabase } from './database';
import { startTestService, type TestService } from './service';

export interface WireCounter {
  /** host:port to use instead of PostgreSQL's. */
  address: string;
  /** Round trips and statements since the last `reset`. */
  roundTrips(): number;
  statements(): string[];
  reset(): void;
  /** PostgreSQL becomes unreachable through the relay: open connections are dropped, new ones closed at once. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Splits one direction's byte stream into frontend messages (after the untyped startup messages). */
function frontendReader(onMessage: (type: string, body: Buffer) => void) {
  let buffered = Buffer.alloc(0);
  let started = false;
  return (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      if (!started) {
        // SSLRequest, GSSENCRequest and StartupMessage: int32 length, int32 code, no type byte.
        if (buffered.length < 8) return;
        const length = buffered.readInt32BE(0);
        if (buffered.length < length) return;
        const code = buffered.readInt32BE(4);
        buffered = buffered.subarray(length);
        if (code === 196608) started = true;
        continue;
      }
      if (buffered.length < 5) return;
      const length = buffered.readInt32BE(1);
      if (buffered.length < length + 1) return;
      onMessage(String.fromCharCode(buffered[0]!), buffered.subarray(5, length + 1));
      buffered = buffered.subarray(length + 1);
    }
  };
}

export async function startWireCounter(target: { host: string; port: number }): Promise<WireCounter> {
  let trips = 0;
  let sent: string[] = [];
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let pending: string[] = [];
    const read = frontendReader((type, body) => {
      // Parse carries the statement of an extended-protocol batch; Query a simple one (which may hold several).
      if (type === 'P') pending.push(body.subarray(body.indexOf(0) + 1, body.indexOf(0, body.indexOf(0) + 1)).toString('utf8'));
      if (type === 'Q') pending.push(body.subarray(0, body.length - 1).toString('utf8'));
      if (type === 'Q' || type === 'S') {
        trips += 1;
        sent.push(pending.join('; ') || '(prepared statement)');
        pending = [];
      }
    });
    client.on('data', (chunk: Buffer) => {
      read(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    roundTrips: () => trips,
    statements: () => [...sent],
    reset() {
      trips = 0;
      sent = [];
    },
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A test service whose every connection to its own fresh PostgreSQL database goes through a relay (PostgreSQL only).
 * `env` adds to the service's settings (e.g. no webhook dispatcher, whose passes would land among counted trips).
 */
export async function startServiceBehindWire(env: Record<string, string> = {}): Promise<{ service: TestService; wire: WireCounter; stop(): Promise<void> }> {
  const database = await createTestDatabase();
  if (database.config.kind !== 'postgresql') throw new Error('PostgreSQL only');
  const url = new URL(database.config.url);
  const wire = await startWireCounter({ host: url.hostname, port: Number(url.port || 5432) });
  url.host = wire.address;
  // No background reconciliation here: its reads would land among the round trips a test counts.
  const service = await startTestService({ database: { config: { kind: 'postgresql', url: url.toString() }, drop: async () => {} }, env: { RECONCILIATION: 'false', ...env } });
  return {
    service,
    wire,
    async stop() {
      wire.restore();
      await service.stop();
      await wire.close();
      await database.drop();
    },
  };
}
