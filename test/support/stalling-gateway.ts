/**
 * A gateway host that takes connections and never finishes an answer, to
 * stand in for a gateway account's base URL: `silent` reads the request and
 * never sends a status line; `trickle` sends 200 and its headers, then one
 * body byte a second for ever (each byte resets a per-chunk body timeout, so
 * only a deadline on the whole call ends it).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Stall = 'silent' | 'trickle';

export interface StallingGateway {
  url: string;
  /** Requests received so far. */
  requests(): number;
  /** Requests the caller gave up on (its connection closed before an answer ended). */
  abandoned(): number;
  close(): Promise<void>;
}

function trickle(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(' ');
  const drip = setInterval(() => res.write(' '), 1_000);
  res.on('close', () => clearInterval(drip));
}

export async function startStallingGateway(stall: Stall): Promise<StallingGateway> {
  let requests = 0;
  let abandoned = 0;
  const server = createServer((req, res) => {
    requests += 1;
    res.on('close', () => abandoned++);
    req.resume();
    if (stall === 'trickle') trickle(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    abandoned: () => abandoned,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
