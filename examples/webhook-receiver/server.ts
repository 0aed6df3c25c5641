/**
 * The example webhook receiver: a node:http server that takes the raw body,
 * verifies it with the SDK against every current secret, answers 2xx at
 * once, and handles each event id once, after answering (the service waits
 * at most 8 seconds for the 2xx).
 *
 * Repeats are recognised by the envelope's `id` (`evt_…`): the signature
 * covers it. `X-Service-Delivery-Id` is not signed, so anyone replaying a
 * captured body could put any value there; it is only logged.
 *
 * With `catchUp`, it also reads what it missed while it was down: on start,
 * the events after the last one it processed, from GET /v1/events (the
 * same envelopes, same ids, in order), through the same handler and the same
 * deduplication. Deliveries that arrive meanwhile are handled as usual; the
 * remembered id moves with the catch-up, then with each delivery handled.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookDelivery, WebhookVerificationError, type PaymentsClient, type WebhookEvent } from '@service-payments/sdk';
import { handleEvent, type Log } from './handlers.js';
import type { LastEventStore } from './last-event.js';
import { SeenEvents } from './seen-events.js';

export interface WebhookReceiverOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /**
   * The endpoint's signing secret (`whsec_…`); during a rotation both the new
   * and the old one (a delivery signed by either is accepted); or a function
   * read at each delivery (to take a rotated secret from your configuration
   * without a restart).
   */
  secret: string | readonly string[] | (() => string | readonly string[]);
  /** Path deliveries are posted to. Default `/webhooks`. */
  path?: string;
  /** Replaces the example's handling (the default logs what a shop would do). */
  onEvent?: (event: WebhookEvent) => Promise<void> | void;
  log?: Log;
  /** Reads the events missed while down (GET /v1/events) on start, after the id `lastEvent` remembers. */
  catchUp?: { client: Pick<PaymentsClient, 'events'>; lastEvent: LastEventStore };
}

export interface RunningWebhookReceiver {
  url: string;
  /** Settles when the catch-up on start is over (how many events it handled); 0 at once without `catchUp`. */
  caughtUp: Promise<number>;
  close(): Promise<void>;
}

/** Deliveries are small; anything much larger is not from the service. */
const MAX_BODY_BYTES = 256 * 1024;

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<RunningWebhookReceiver> {
  if (!options.secret || (Array.isArray(options.secret) && options.secret.length === 0)) throw new Error('The webhook signing secret is required.');
  const secret = options.secret;
  const secretNow = typeof secret === 'function' ? secret : () => secret;
  const path = options.path ?? '/webhooks';
  const log = options.log ?? ((line: string) => console.log(line));
  const onEvent = options.onEvent ?? ((event: WebhookEvent) => handleEvent(event, log));
  const seen = new SeenEvents();
  /** Until the catch-up is over, deliveries do not move the remembered id: a crash then would skip what is left to read. */
  let catchingUp = options.catchUp !== undefined;
  const remember = async (eventId: string) => {
    if (options.catchUp && !catchingUp) await options.catchUp.lastEvent.write(eventId);
  };

  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://receiver.local').pathname !== path) return reply(res, 404, { error: 'not_found' });
    if (req.method !== 'POST') return reply(res, 405, { error: 'method_not_allowed' });
    readRawBody(req)
      .then((rawBody) => {
        if (!rawBody) return reply(res, 413, { error: 'body_too_large' });
        const deliveryId = String(req.headers['x-service-delivery-id'] ?? '?');
        let event: WebhookEvent;
        let stale: boolean;
        try {
          // A correctly signed delivery with an old timestamp comes back as `stale` rather than an error.
          ({ event, stale } = verifyWebhookDelivery({ rawBody, headers: req.headers, secret: secretNow() }));
        } catch (error) {
          if (!(error instanceof WebhookVerificationError)) throw error;
          // 4xx: the service records the delivery as FAILED and does not retry it.
          log(`rejected delivery ${deliveryId}: ${error.reason}`);
          return reply(res, 400, { error: 'invalid_signature', reason: error.reason });
        }
        // Once per signed event id, whatever the delivery id and however late it arrives.
        if (!seen.claim(event.id)) return reply(res, 200, { received: true, duplicate: true });
        // Old timestamp, never-processed event: an operator's resend of a delivery this receiver missed.
        if (stale) log(`accepted a late resend of ${event.type} ${event.id} (delivery ${deliveryId})`);
        reply(res, 200, { received: true });
        // After the answer: slow work must not make the delivery time out.
        setImmediate(() => {
          Promise.resolve()
            .then(() => onEvent(event))
            .then(() => remember(event.id))
            .catch((error: unknown) => {
              seen.release(event.id);
              log(`handling ${event.type} ${event.id} failed: ${error instanceof Error ? error.message : String(error)}`);
            });
        });
      })
      .catch((error: unknown) => {
        log(`unexpected error: ${error instanceof Error ? error.message : String(error)}`);
        if (!res.headersSent) reply(res, 500, { error: 'internal_error' });
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';

  // Listening first: deliveries of new events are taken while the missed ones are read.
  const caughtUp = options.catchUp ? catchUp(options.catchUp, seen, onEvent, log).finally(() => (catchingUp = false)) : Promise.resolve(0);
  caughtUp.catch((error: unknown) => log(`catching up failed: ${error instanceof Error ? error.message : String(error)}; restart to try again`));
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    caughtUp,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/**
 * Every event after the remembered one, oldest first, each handled once and
 * then remembered. The API answers with the caller's API key over HTTPS, so
 * these events carry no signature; they are the envelopes deliveries carry.
 * A failure stops the catch-up where it is: the next start resumes there.
 */
async function catchUp(
  { client, lastEvent }: NonNullable<WebhookReceiverOptions['catchUp']>,
  seen: SeenEvents,
  onEvent: (event: WebhookEvent) => Promise<void> | void,
  log: Log,
): Promise<number> {
  const after = await lastEvent.read();
  // Nothing remembered: a receiver starting for the first time, which has missed nothing of its own. Replaying the
  // whole retained history instead could act again on what another receiver already handled.
  if (after === undefined) {
    log('no event remembered yet: the first delivery handled will be where the next catch-up starts');
    return 0;
  }
  let handled = 0;
  // The same envelopes (and the same `WebhookEvent` type) a delivery carries.
  for await (const event of client.events.iterate({ after })) {
    if (seen.claim(event.id)) {
      try {
        await onEvent(event);
      } catch (error) {
        seen.release(event.id);
        throw error;
      }
      handled += 1;
    }
    await lastEvent.write(event.id);
  }
  log(handled > 0 ? `caught up: handled ${handled} event(s) missed after ${after}` : 'caught up: nothing was missed');
  return handled;
}

/** The body exactly as sent (the signature covers these bytes), or undefined when it is too large. */
function readRawBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
