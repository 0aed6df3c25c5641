/**
 * An HTTP relay in front of a gateway simulator, to stand in for a gateway
 * account's base URL: it forwards every request as it came, except that while
 * it holds (`hold()`), requests are read and kept unsent until `release()`.
 * A test can so act at a chosen point of a call the service is making (after
 * its insert, before its answer), without timing luck. Each request's method,
 * path and Idempotency-Key are recorded.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RelayedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
}

export interface HoldingRelay {
  url: string;
  /** Every request received, in order (held ones included). */
  requests: RelayedRequest[];
  /** Requests from now on are kept until `release()`. */
  hold(): void;
  /** Sends the kept requests on, and every later one at once. */
  release(): void;
  /** How many requests are kept now. */
  held(): number;
  close(): Promise<void>;
}

/** Connection-level headers belong to each hop; the relay's own connection to the target sets its own. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host'];
const endToEnd = (headers: IncomingHttpHeaders): IncomingHttpHeaders => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.includes(name)));

export async function startHoldingRelay(target: string): Promise<HoldingRelay> {
  const requests: RelayedRequest[] = [];
  let holding = false;
  let kept: (() => void)[] = [];
  const server = createServer((req, res) => {
    const key = req.headers['idempotency-key'];
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', idempotencyKey: typeof key === 'string' ? key : null });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const forward = () => {
        const body = Buffer.concat(chunks);
        const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: { ...endToEnd(req.headers), 'content-length': String(body.length) } }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
          answer.pipe(res);
        });
        upstream.on('error', (error) => res.destroy(error));
        upstream.end(body);
      };
      if (holding) kept.push(forward);
      else forward();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      const waiting = kept;
      kept = [];
      for (const forward of waiting) forward();
    },
    held: () => kept.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
