/**
 * The HTTP core shared by the three simulators: routing, JSON bodies, the
 * gateway's auth check, fault injection and call counting. Each simulator
 * supplies its routes and its own error formats, so the wire protocol stays
 * the gateway's.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fault, SimOperation } from '../../contract/sandbox-controls';
import { FaultQueue } from './faults';

export interface SimRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Parsed JSON body; undefined when empty or not JSON. */
  body: unknown;
}

export interface SimResponse {
  status: number;
  body?: unknown;
  /** Sent as is instead of JSON-encoding body (bytes for an image). */
  rawBody?: string | Buffer;
  contentType?: string;
  /** Extra headers, e.g. the Location of a hosted page's redirect. */
  headers?: Record<string, string>;
}

export type SimHandler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

export interface SimRoute {
  method: string;
  /** `/v1/payments/:id` style. */
  pattern: string;
  /** The operation faults and counts apply to; a function when one route serves several (gateway_c). */
  operation?: SimOperation | ((req: SimRequest) => SimOperation);
  /** Control and hosted-page routes: no gateway auth. */
  public?: boolean;
  handler: SimHandler;
}

export interface SimProtocol {
  /** null when the request carries valid credentials, else the gateway's 401. */
  authenticate(req: SimRequest): SimResponse | null;
  /** The gateway's error body for a status. */
  errorResponse(status: number, message: string): SimResponse;
  /** The gateway's 422-style refusal naming one of its fields. */
  validationResponse(field: string, message: string): SimResponse;
  /** Field named by an injected validation fault that does not name one. */
  defaultValidationField(operation: SimOperation): string;
}

/** A control action on something that does not exist or cannot move. */
export class SimControlError extends Error {
  override name = 'SimControlError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface CompiledRoute extends SimRoute {
  regex: RegExp;
  keys: string[];
}

function compile(route: SimRoute): CompiledRoute {
  const keys: string[] = [];
  const source = route.pattern
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      keys.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { ...route, regex: new RegExp(`^${source}$`), keys };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, response: SimResponse): void {
  const text: string | Buffer = response.rawBody ?? (response.body === undefined ? '' : JSON.stringify(response.body));
  res.writeHead(response.status, {
    ...response.headers,
    'content-type': response.contentType ?? 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export interface RunningSimServer {
  url: string;
  faults: FaultQueue;
  calls: Partial<Record<SimOperation, number>>;
  close(): Promise<void>;
}

export async function startSimServer(options: {
  port?: number;
  host?: string;
  protocol: SimProtocol;
  routes: SimRoute[];
}): Promise<RunningSimServer> {
  const routes = options.routes.map(compile);
  const faults = new FaultQueue();
  const calls: Partial<Record<SimOperation, number>> = {};

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const rawBody = await readBody(req);
    let body: unknown;
    try {
      body = rawBody.length > 0 ? (JSON.parse(rawBody.toString('utf8')) as unknown) : undefined;
    } catch {
      body = undefined;
    }
    const method = req.method ?? 'GET';
    let matched: { route: CompiledRoute; params: Record<string, string> } | undefined;
    for (const route of routes) {
      if (route.method !== method) continue;
      const match = route.regex.exec(url.pathname);
      if (!match) continue;
      const params: Record<string, string> = {};
      route.keys.forEach((key, index) => {
        params[key] = decodeURIComponent(match[index + 1] ?? '');
      });
      matched = { route, params };
      break;
    }
    if (!matched) return send(res, options.protocol.errorResponse(404, 'No such route'));
    const simReq: SimRequest = {
      method,
      path: url.pathname,
      params: matched.params,
      query: url.searchParams,
      headers: req.headers,
      rawBody,
      body,
    };
    const { route } = matched;
    if (route.public) return send(res, await runControl(route.handler, simReq));
    const denied = options.protocol.authenticate(simReq);
    if (denied) return send(res, denied);
    const operation = typeof route.operation === 'function' ? route.operation(simReq) : route.operation;
    if (operation !== undefined) {
      calls[operation] = (calls[operation] ?? 0) + 1;
      const fault = faults.take(operation);
      if (fault && (await applyFault(fault, operation, route, simReq, res)) === 'handled') return;
    }
    send(res, await route.handler(simReq));
  }

  async function applyFault(
    fault: Fault,
    operation: SimOperation,
    route: CompiledRoute,
    req: SimRequest,
    res: ServerResponse,
  ): Promise<'handled' | 'continue'> {
    switch (fault.kind) {
      case 'latency':
        await sleep(fault.ms);
        return 'continue';
      case 'hang':
        // Hold the socket open without answering; close() destroys it.
        await new Promise<never>(() => {});
        return 'handled';
      case 'server_error':
        send(res, options.protocol.errorResponse(fault.status ?? 500, 'Internal error'));
        return 'handled';
      case 'client_error':
        send(res, options.protocol.errorResponse(fault.status ?? 400, 'Request refused'));
        return 'handled';
      case 'validation': {
        const field = fault.field ?? options.protocol.defaultValidationField(operation);
        send(res, options.protocol.validationResponse(field, `${field} is invalid`));
        return 'handled';
      }
      case 'malformed':
        send(res, { status: fault.status ?? 200, rawBody: fault.body ?? '<html><body>upstream proxy error</body></html>' });
        return 'handled';
      case 'drop_response':
        await route.handler(req);
        res.socket?.destroy();
        return 'handled';
      case 'late_response': {
        const answer = await route.handler(req);
        await sleep(fault.ms);
        if (!res.destroyed && !res.socket?.destroyed) send(res, answer);
        return 'handled';
      }
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, options.protocol.errorResponse(500, 'Simulator failure'));
      else res.destroy();
      // A simulator bug must be visible in test output, not swallowed.
      process.emitWarning(error instanceof Error ? error : new Error(String(error)), 'GatewaySimulator');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    faults,
    calls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hung requests and keep-alive sockets would otherwise hold close() forever.
        server.closeAllConnections();
      }),
  };
}

async function runControl(handler: SimHandler, req: SimRequest): Promise<SimResponse> {
  try {
    return await handler(req);
  } catch (error) {
    if (error instanceof SimControlError) return { status: error.status, body: { error: error.message } };
    throw error;
  }
}
