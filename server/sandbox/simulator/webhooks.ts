/**
 * Outbound webhooks of a simulator: signed the gateway's way, delivered one
 * at a time in emit order, and kept so they can be replayed (duplicates) or
 * replayed in reverse (out of order), like real gateways do to receivers.
 */
import { request } from 'undici';

export interface WebhookAttempt {
  at: string;
  status: number | null;
  error: string | null;
}

export interface WebhookDelivery {
  seq: number;
  event: string;
  headers: Record<string, string>;
  body: string;
  attempts: WebhookAttempt[];
}

export type WebhookSigner = (body: string) => Record<string, string>;

const DELIVERY_TIMEOUT_MS = 5_000;

export class WebhookDispatcher {
  private readonly log: WebhookDelivery[] = [];
  private chain: Promise<void> = Promise.resolve();
  private enabled = true;

  constructor(
    private url: string | null,
    private readonly sign: WebhookSigner,
  ) {}

  setUrl(url: string | null): void {
    this.url = url;
  }

  /** Off: new webhooks are recorded and never sent (lost notifications); replay sends them on demand. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
  }

  /** Records and sends one webhook (after the ones already queued). */
  emit(event: string, payload: unknown): void {
    const body = JSON.stringify(payload);
    const delivery: WebhookDelivery = {
      seq: this.log.length + 1,
      event,
      headers: { 'content-type': 'application/json', ...this.sign(body) },
      body,
      attempts: [],
    };
    this.log.push(delivery);
    if (this.enabled) this.enqueue(delivery);
  }

  deliveries(): readonly WebhookDelivery[] {
    return this.log;
  }

  /** Sends the last N recorded webhooks again with their original bytes and signatures. */
  async replay(options: { last?: number; reverse?: boolean } = {}): Promise<WebhookDelivery[]> {
    const last = options.last ?? this.log.length;
    const picked = last > 0 ? this.log.slice(-last) : [];
    if (options.reverse) picked.reverse();
    for (const delivery of picked) this.enqueue(delivery);
    await this.idle();
    return picked;
  }

  /** Resolves once every queued delivery has been attempted. */
  idle(): Promise<void> {
    return this.chain;
  }

  private enqueue(delivery: WebhookDelivery): void {
    this.chain = this.chain.then(() => this.deliver(delivery));
  }

  private async deliver(delivery: WebhookDelivery): Promise<void> {
    const url = this.url;
    if (url === null) return;
    const attempt: WebhookAttempt = { at: new Date().toISOString(), status: null, error: null };
    delivery.attempts.push(attempt);
    try {
      const response = await request(url, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      attempt.status = response.statusCode;
      await response.body.dump();
    } catch (error) {
      attempt.error = error instanceof Error ? error.message : String(error);
    }
  }
}
