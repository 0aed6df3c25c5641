/**
 * `PaymentsClient`: the typed client of /v1. Inputs and outputs are the
 * generated contract types (`Operations`), so a contract change that breaks
 * a caller breaks its compilation, not its production traffic.
 */
import type { Operations } from './generated/contract.js';
import type { WebhookEvent, WebhookEventPage, WebhookEventType } from './events.js';
import type { WithResponse } from './response.js';
import { extraHeaders, send, type HttpRequest, type RequestOptions, type TransportSettings } from './transport.js';
import type { EnvironmentKind } from './types.js';
import { SDK_VERSION } from './version.js';

export interface PaymentsClientOptions {
  /** `sk_test_…` (sandbox) or `sk_live_…` (production). A backend secret: never ship it to a browser. */
  apiKey: string;
  /** Address of the service, for example `https://payments.example.com` (without `/v1`). */
  baseUrl: string;
  /** Per attempt, in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Retries after the first attempt for 429, 500, 502, 503, 504, timeouts and network failures. Default 2. */
  maxRetries?: number;
  /** Backoff of the first retry before jitter, doubled for each further one. Default 500. */
  retryBaseDelayMs?: number;
  /** Cap of one backoff wait. Default 8000. */
  retryMaxDelayMs?: number;
  /**
   * A `Retry-After` longer than this is not waited for: the 429 is thrown with
   * `retryAfter`. Default 5: a web request handler cannot sit out a rate-limit
   * window (up to 60 s); raise it for background jobs.
   */
  maxRetryAfterSeconds?: number;
  /** Headers sent with every request (per-call `headers` are added after them). */
  headers?: Record<string, string>;
  /** A `fetch` implementation (default: the global one). */
  fetch?: typeof fetch;
}

type Op<Id extends keyof Operations> = Operations[Id];
/** The answer of an operation, with its response metadata as `lastResponse`. */
type Answer<Id extends keyof Operations> = Promise<WithResponse<Op<Id>['response']>>;

/** Node's `util.inspect.custom`, by its registered name, so the client needs no `node:` import (edge runtimes). */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** `node/24.1.0`, `deno/2.1.0`, `bun/1.2.0`, or `js` where the runtime does not say. */
function runtimeOf(): string {
  const versions = (globalThis as { process?: { versions?: Record<string, string | undefined> } }).process?.versions;
  for (const name of ['bun', 'deno', 'node']) {
    if (versions?.[name]) return `${name}/${versions[name]}`;
  }
  return 'js';
}

const API_KEY = /^sk_(test|live)_[A-Za-z0-9]+$/;

export class PaymentsClient {
  readonly baseUrl: string;
  /** Which environment the key belongs to, from its prefix. */
  readonly environment: EnvironmentKind;
  readonly payments: PaymentsResource;
  readonly subscriptions: SubscriptionsResource;
  readonly refunds: RefundsResource;
  readonly events: EventsResource;
  // A private field: not enumerable, not serialized, not shown by console.log.
  readonly #apiKey: string;
  readonly #settings: TransportSettings;

  constructor(options: PaymentsClientOptions) {
    if (typeof options?.apiKey !== 'string' || !API_KEY.test(options.apiKey)) {
      // The message never repeats the value: it may be a real secret pasted in the wrong place.
      throw new TypeError('PaymentsClient: apiKey must be an API key starting with sk_test_ (sandbox) or sk_live_ (production).');
    }
    let baseUrl: URL;
    try {
      baseUrl = new URL(options.baseUrl);
    } catch {
      throw new TypeError('PaymentsClient: baseUrl must be an absolute http(s) URL, for example https://payments.example.com.');
    }
    if (baseUrl.protocol !== 'https:' && baseUrl.protocol !== 'http:') throw new TypeError('PaymentsClient: baseUrl must use http or https.');
    if (!baseUrl.pathname.endsWith('/')) baseUrl.pathname += '/';
    const timeoutMs = options.timeoutMs ?? 30_000;
    const maxRetries = options.maxRetries ?? 2;
    if (!(timeoutMs > 0)) throw new TypeError('PaymentsClient: timeoutMs must be a positive number.');
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('PaymentsClient: maxRetries must be an integer >= 0.');
    const headers: Record<string, string> = {};
    extraHeaders(headers, options.headers, 'PaymentsClient: headers');

    this.#apiKey = options.apiKey;
    this.baseUrl = baseUrl.href.replace(/\/$/, '');
    this.environment = options.apiKey.startsWith('sk_live_') ? 'production' : 'sandbox';
    this.#settings = {
      baseUrl,
      authorization: () => `Bearer ${this.#apiKey}`,
      timeoutMs,
      maxRetries,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 500,
      retryMaxDelayMs: options.retryMaxDelayMs ?? 8_000,
      maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 5,
      userAgent: `service-payments-sdk/${SDK_VERSION} ${runtimeOf()}`,
      headers,
      fetch: options.fetch ?? globalThis.fetch,
    };
    const call = <T>(request: HttpRequest, requestOptions?: RequestOptions) => send<T>(this.#settings, request, requestOptions);
    this.payments = new PaymentsResource(call);
    this.subscriptions = new SubscriptionsResource(call);
    this.refunds = new RefundsResource(call);
    this.events = new EventsResource(call);
  }

  /** Checks the key: which organization, project and environment it belongs to. */
  authTest(options?: RequestOptions): Answer<'authTest'> {
    return send(this.#settings, { method: 'GET', path: '/v1/auth/test' }, options);
  }

  /** Liveness of the service; needs no key. */
  health(options?: RequestOptions): Answer<'health'> {
    return send(this.#settings, { method: 'GET', path: '/v1/health', authenticated: false }, options);
  }

  /** What `JSON.stringify` shows: never the key. */
  toJSON(): { baseUrl: string; environment: EnvironmentKind; apiKey: string } {
    return { baseUrl: this.baseUrl, environment: this.environment, apiKey: '[redacted]' };
  }

}

// What `console.log` and `util.inspect` show: never the key. Node hands its own `inspect` as the third argument.
Object.defineProperty(PaymentsClient.prototype, INSPECT, {
  value(this: PaymentsClient, _depth: number, options: unknown, inspect?: (value: unknown, options: unknown) => string): string {
    return `PaymentsClient ${inspect ? inspect(this.toJSON(), options) : JSON.stringify(this.toJSON())}`;
  },
});

type Call = <T>(request: HttpRequest, options?: RequestOptions) => Promise<WithResponse<T>>;

/** An id as one path segment; async callers turn the TypeError into a rejection. */
const segment = (id: string): string => {
  if (typeof id !== 'string' || id === '') throw new TypeError('An id is required.');
  return encodeURIComponent(id);
};

export class PaymentsResource {
  readonly #call: Call;
  constructor(call: Call) {
    this.#call = call;
  }

  /**
   * Creates a Pix or card payment. Idempotent by `externalId`: repeating it
   * (also after a timeout or a retried failure) returns the same payment.
   */
  create(body: Op<'payments-create'>['request'], options?: RequestOptions): Answer<'payments-create'> {
    return this.#call({ method: 'POST', path: '/v1/payments', body }, options);
  }

  /** The stored payment (no gateway call). */
  async get(id: string, options?: RequestOptions): Answer<'payments-get'> {
    return this.#call({ method: 'GET', path: `/v1/payments/${segment(id)}` }, options);
  }

  /** The stored payment created with this `externalId` (no gateway call). */
  getByExternalId(externalId: string, options?: RequestOptions): Answer<'payments-findByExternalId'> {
    return this.#call({ method: 'GET', path: '/v1/payments', query: { externalId } }, options);
  }

  /** Cancels an unpaid card payment (Pix payments expire by themselves). */
  async cancel(id: string, options?: RequestOptions): Answer<'payments-cancel'> {
    return this.#call({ method: 'POST', path: `/v1/payments/${segment(id)}/cancel` }, options);
  }

  /** Asks the gateway for the current state now and stores it. */
  async sync(id: string, options?: RequestOptions): Answer<'payments-sync'> {
    return this.#call({ method: 'POST', path: `/v1/payments/${segment(id)}/sync` }, options);
  }
}

export class SubscriptionsResource {
  readonly #call: Call;
  constructor(call: Call) {
    this.#call = call;
  }

  /** Creates a card subscription. Idempotent by `externalId`. */
  create(body: Op<'subscriptions-create'>['request'], options?: RequestOptions): Answer<'subscriptions-create'> {
    return this.#call({ method: 'POST', path: '/v1/subscriptions', body }, options);
  }

  async get(id: string, options?: RequestOptions): Answer<'subscriptions-get'> {
    return this.#call({ method: 'GET', path: `/v1/subscriptions/${segment(id)}` }, options);
  }

  getByExternalId(externalId: string, options?: RequestOptions): Answer<'subscriptions-findByExternalId'> {
    return this.#call({ method: 'GET', path: '/v1/subscriptions', query: { externalId } }, options);
  }

  /** Cancels now, or with `atPeriodEnd: true` at the end of the current cycle (not on gateway_a or gateway_c). */
  async cancel(
    id: string,
    body: Op<'subscriptions-cancel'>['request'] = {},
    options?: RequestOptions,
  ): Answer<'subscriptions-cancel'> {
    return this.#call({ method: 'POST', path: `/v1/subscriptions/${segment(id)}/cancel`, body }, options);
  }

  /**
   * Asks the gateway for the current state now and stores it (a gateway_c
   * subscription whose customer completed checkout becomes `sub_…`).
   */
  async sync(id: string, options?: RequestOptions): Answer<'subscriptions-sync'> {
    return this.#call({ method: 'POST', path: `/v1/subscriptions/${segment(id)}/sync` }, options);
  }
}

/**
 * Money of a paid payment given back to the customer (decision 18), in full or
 * in part. A refund starts `pending` and becomes `succeeded` or `failed` when
 * its gateway says so (the `refund.*` webhooks); the payment stays `paid` and
 * its `amountRefunded` counts the succeeded ones.
 */
export class RefundsResource {
  readonly #call: Call;
  constructor(call: Call) {
    this.#call = call;
  }

  /**
   * Refunds a paid payment: `amount` cents, or all that is still refundable
   * when omitted. Idempotent by `externalId` within the environment, as
   * payments are: repeating it (also after a timeout or a retried failure)
   * returns the same refund and never gives the money back twice.
   */
  async create(paymentId: string, body: Op<'refunds-create'>['request'], options?: RequestOptions): Answer<'refunds-create'> {
    return this.#call({ method: 'POST', path: `/v1/payments/${segment(paymentId)}/refunds`, body }, options);
  }

  /** The stored refund (no gateway call). */
  async get(id: string, options?: RequestOptions): Answer<'refunds-get'> {
    return this.#call({ method: 'GET', path: `/v1/refunds/${segment(id)}` }, options);
  }

  /** The stored refund created with this `externalId` (no gateway call). */
  getByExternalId(externalId: string, options?: RequestOptions): Answer<'refunds-findByExternalId'> {
    return this.#call({ method: 'GET', path: '/v1/refunds', query: { externalId } }, options);
  }
}

/**
 * What `events.list` takes: all optional. Each also accepts `undefined` (and `after` also `null`, what
 * `nextCursor` is before any event exists), so a value read from storage passes as it is under `exactOptionalPropertyTypes`.
 */
export interface ListEventsParams {
  /** The id of the last event you processed (`evt_…`); the list continues strictly after it. Omitted or null: from the oldest event kept. */
  after?: string | null | undefined;
  /** Only events of this type. */
  type?: WebhookEventType | undefined;
  /** Events per page, 1 to 100 (the service's default: 50). */
  limit?: number | undefined;
}

/**
 * The events webhooks deliver, listed in the order they happened (decision 19):
 * a receiver that was down reads what it missed from the last event id it
 * processed. Each event is exactly the body a delivery carries, typed as the
 * same `WebhookEvent` union the webhook verifiers return, so one handler takes
 * both; deduplicate on `id` as for deliveries. Events are kept at least 30 days.
 */
export class EventsResource {
  readonly #call: Call;
  constructor(call: Call) {
    this.#call = call;
  }

  /** One page: `{data, hasMore, nextCursor}`; pass `nextCursor` as `after` for the next one. */
  list(params: ListEventsParams = {}, options?: RequestOptions): Promise<WithResponse<WebhookEventPage>> {
    const query: Record<string, string> = {};
    if (params.after !== undefined && params.after !== null) query.after = params.after;
    if (params.type !== undefined) query.type = params.type;
    if (params.limit !== undefined) {
      if (!Number.isInteger(params.limit) || params.limit < 1 || params.limit > 100) return Promise.reject(new TypeError('events.list: limit must be an integer from 1 to 100.'));
      query.limit = String(params.limit);
    }
    return this.#call<WebhookEventPage>({ method: 'GET', path: '/v1/events', query }, options);
  }

  /**
   * Every event after `after`, oldest first, fetching pages of `pageSize`
   * (default 100) as it goes, until it is caught up. Store each event's `id`
   * once processed: that is where the next catch-up starts.
   */
  async *iterate(
    params: Omit<ListEventsParams, 'limit'> & { pageSize?: number | undefined } = {},
    options?: RequestOptions,
  ): AsyncGenerator<WebhookEvent, void, undefined> {
    let after = params.after;
    for (;;) {
      const page = await this.list({ after, type: params.type, limit: params.pageSize ?? 100 }, options);
      yield* page.data;
      if (!page.hasMore || page.nextCursor === null || page.data.length === 0) return;
      after = page.nextCursor;
    }
  }
}
