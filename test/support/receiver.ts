/** A merchant's receiver on this machine: a real HTTP server recording raw bytes, answering as told. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  raw: string;
  json: any;
  /** When the request had fully arrived (ms since the epoch). */
  at: number;
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface Receiver {
  url(path?: string): string;
  port: number;
  received: ReceivedDelivery[];
  /** How the next requests are answered (default 200 `ok`). */
  answer(next: Answer | ((delivery: ReceivedDelivery) => Answer)): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  let answer: (delivery: ReceivedDelivery) => Answer = () => ({ status: 200, body: 'ok' });
  const timers = new Set<NodeJS.Timeout>();
  const reply = (res: ServerResponse, a: Answer) => {
    if (res.destroyed) return;
    res.writeHead(a.status, a.headers).end(a.body ?? '');
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      const delivery = { headers: req.headers, raw, json, at: Date.now() };
      received.push(delivery);
      const a = answer(delivery);
      if (!a.delayMs) return reply(res, a);
      const timer = setTimeout(() => {
        timers.delete(timer);
        reply(res, a);
      }, a.delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path = '/hooks') => `http://127.0.0.1:${port}${path}`,
    received,
    answer(next) {
      answer = typeof next === 'function' ? next : () => next;
    },
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} deliveries, expected ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
