/** A tiny scripted HTTP server for the retry tests: each request takes the next step of the script. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step = (req: IncomingMessage, res: ServerResponse) => void;

export interface FakeServer {
  url: string;
  /** Requests received so far, with their method, path and headers. */
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${status}`, ...headers }).end(JSON.stringify(body));
  };

/** Never answers: the client's timeout has to end the attempt. */
export const hang: Step = () => {};

/** Drops the connection without an answer. */
export const reset: Step = (req) => {
  req.socket.destroy();
};

export async function startFakeServer(script: Step[], fallback: Step = json(500, { error: 'internal_error' })): Promise<FakeServer> {
  const requests: FakeServer['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      (script[requests.length - 1] ?? fallback)(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
