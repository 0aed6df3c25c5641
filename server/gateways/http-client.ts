/**
 * The HTTP client every adapter uses: undici with a connect timeout and a
 * total deadline covering headers and body, and one mapping of every
 * transport failure to an `unavailable` GatewayFailure that says how the
 * connection broke. Status handling stays with the adapter, which knows its
 * gateway's error format.
 */
import { Agent, request, type buildConnector } from 'undici';
import type { GatewayName } from '../contract/enums';
import { GatewayFailure, type TransportFailure } from './errors';

export interface GatewayTimeouts {
  /** TCP (and TLS) connect. */
  connectMs: number;
  /** Whole call: connect, headers and body. */
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: GatewayTimeouts = { connectMs: 3_000, totalMs: 10_000 };

/** How calls reach a gateway: the timeouts, and the connector that may refuse an address (the SSRF guard, in production). */
export interface GatewayTransport {
  timeouts?: Partial<GatewayTimeouts>;
  /** Opens every connection; without one, any address is connected to. */
  connector?: buildConnector.connector;
}

export interface GatewayRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface GatewayResponse {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
}

export class GatewayHttpClient {
  private readonly agent: Agent;
  private readonly timeouts: GatewayTimeouts;
  private readonly origin: URL;

  constructor(
    private readonly provider: GatewayName,
    baseUrl: string,
    transport: GatewayTransport,
    private readonly defaultHeaders: Record<string, string>,
  ) {
    this.origin = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...transport.timeouts };
    this.agent = new Agent({
      connect: transport.connector ?? { timeout: this.timeouts.connectMs },
      headersTimeout: this.timeouts.totalMs,
      bodyTimeout: this.timeouts.totalMs,
    });
  }

  async send(req: GatewayRequest): Promise<GatewayResponse> {
    // Paths are relative so a base URL with a prefix (…/sandbox/) keeps it.
    const url = new URL(req.path.replace(/^\//, ''), this.origin);
    const what = `${req.method} ${url.pathname}`;
    const headers: Record<string, string> = { accept: 'application/json', ...this.defaultHeaders, ...req.headers };
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    let status: number;
    let text: string;
    try {
      const response = await request(url, {
        method: req.method,
        headers,
        body: payload,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeouts.totalMs),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw GatewayFailure.transport(this.provider, `${what} failed before a complete answer`, transportFailureOf(error), error);
    }
    if (text.trim() === '') return { status, body: undefined };
    try {
      return { status, body: JSON.parse(text) as unknown };
    } catch {
      // A 5xx says what happened whatever its body: a 502 or 503 page from a proxy in front of the gateway is its
      // outage (responses.ts answers the status), not an answer we cannot read. Any other status with such a body
      // (a 404 page from a wrong base URL) stays unreadable: a read must not take it for "not found there".
      if (status >= 500) return { status, body: undefined };
      throw GatewayFailure.unavailable(this.provider, `${what} answered ${status} with a body that is not JSON`);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const REFUSED_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** What undici's error (or one it wraps) says about the connection; anything else broke it mid-call. */
function transportFailureOf(cause: unknown): TransportFailure {
  for (let error: unknown = cause, depth = 0; error && depth < 5; error = (error as { cause?: unknown }).cause, depth++) {
    const { name, code } = error as { name?: string; code?: string };
    if (name === 'TimeoutError' || name === 'AbortError' || (code && TIMEOUT_CODES.has(code))) return 'timeout';
    if (code && REFUSED_CODES.has(code)) return 'refused_connection';
  }
  return 'reset';
}
