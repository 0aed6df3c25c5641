/**
 * One HTTP attempt of a delivery: a POST of the frozen body
 * with the signed headers, through the guarded agents, within the delivery
 * timeout. 2xx in time is `SENT`; anything else is `FAILED`, retryable or not. The answer is
 * only measured and excerpted, never followed or interpreted.
 */
import { request } from 'undici';
import type { WebhookAgents } from '../outbound/guarded-agent';
import { checkUrlShape, UrlRefused, type UrlPolicy } from '../outbound/url-guard';
import { deliveryHeaders } from '../contract/webhook-headers';

/** How much of a receiver's answer is kept, for the operator. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface OutgoingDelivery {
  url: string;
  policy: UrlPolicy;
  deliveryId: string;
  eventType: string;
  body: string;
  timestamp: number;
  signature: string;
}

export interface AttemptResult {
  outcome: 'SENT' | 'FAILED';
  responseStatus: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  /** Why there is no usable answer; never contains secrets. */
  error: string | null;
  /**
   * Whether an automatic retry may succeed (decision 23): a timeout, a network error or a 5xx. A 4xx is the receiver's
   * permanent refusal, a 3xx is never followed, and an address the guard refuses stays refused: none is retried.
   */
  retryable: boolean;
}

function findRefusal(error: unknown): UrlRefused | null {
  for (let current: unknown = error, depth = 0; current && depth < 6; depth++) {
    if (current instanceof UrlRefused) return current;
    if (current instanceof AggregateError) {
      const inner = current.errors.map(findRefusal).find(Boolean);
      if (inner) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  const failure = error as { code?: string; message?: string; cause?: { code?: string } };
  const code = failure.code ?? failure.cause?.code;
  if (timedOut || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return `timed out after ${timeoutMs} ms`;
  const refusal = findRefusal(error);
  if (refusal) return `refused: ${refusal.message}`;
  return `network error: ${[code, failure.message].filter(Boolean).join(' ')}`.slice(0, 500);
}

/** Text of at most `limit` bytes; NUL is not storable in PostgreSQL text. */
const excerptText = (bytes: Buffer): string => bytes.toString('utf8').replace(/\u0000/g, '\uFFFD');

export class WebhookTransport {
  constructor(
    private readonly agents: WebhookAgents,
    private readonly timeoutMs: number,
  ) {}

  async send(delivery: OutgoingDelivery): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      checkUrlShape(delivery.url, delivery.policy);
    } catch (error) {
      return { outcome: 'FAILED', responseStatus: null, durationMs: 0, responseExcerpt: null, error: describeFailure(error, false, this.timeoutMs), retryable: false };
    }

    const signal = AbortSignal.timeout(this.timeoutMs);
    let status: number;
    let body: AsyncIterable<Buffer> & { destroy(): void };
    try {
      const response = await request(delivery.url, {
        method: 'POST',
        headers: deliveryHeaders(delivery),
        body: delivery.body,
        dispatcher: delivery.policy.allowLocal ? this.agents.local : this.agents.strict,
        signal,
      });
      status = response.statusCode;
      body = response.body;
    } catch (error) {
      const reason = describeFailure(error, signal.aborted, this.timeoutMs);
      // A timeout or network error may pass; an address the guard refused at connection will be refused again.
      return { outcome: 'FAILED', responseStatus: null, durationMs: elapsed(), responseExcerpt: null, error: reason, retryable: signal.aborted || findRefusal(error) === null };
    }
    const durationMs = elapsed();
    const excerpt = await this.readExcerpt(body);
    const sent = status >= 200 && status < 300;
    return {
      outcome: sent ? 'SENT' : 'FAILED',
      responseStatus: status,
      durationMs,
      responseExcerpt: excerpt,
      error: sent ? null : `receiver answered ${status}`,
      retryable: status >= 500,
    };
  }

  /** The first bytes of the answer, read within the same deadline; the rest is dropped unread. */
  private async readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_EXCERPT_BYTES) break;
      }
    } catch {
      // A broken or late body does not change the outcome; keep what arrived.
    } finally {
      body.destroy();
    }
    if (size === 0) return null;
    return excerptText(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES));
  }
}
