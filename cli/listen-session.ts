/**
 * A `listen` session: receives a sandbox environment's events as they are
 * committed (the service's listen stream, http/listen-stream.ts) and forwards
 * each one to a receiver on this machine, with the headers and signature a
 * registered endpoint gets, reconnecting and resuming after the last event
 * forwarded when the service goes away. Used by the operator's
 * `payments-admin webhook listen` and by the merchant CLI's `payments listen`
 * (merchant-cli/, which bundles it): one implementation of the protocol.
 *
 * With the admin token the secret is made for the session. With a sandbox API
 * key (a merchant's developer, no operator needed) it is kept for the key on
 * this machine (listen-secrets.ts), so the receiver is configured once.
 */
import { InvalidArgumentError } from 'commander';
import { request } from 'undici';
import { homedir } from 'node:os';
import { newId } from '../server/contract/ids';
import { LISTEN_PATH, LISTEN_READY, LISTEN_WEBHOOK, type ListenReady } from '../server/contract/listen-protocol';
import { newSigningSecret, signatureHeader } from '../server/contract/webhook-signature';
import { deliveryHeaders } from '../server/contract/webhook-headers';
import { hintFor, type DevCredential } from './credentials';
import { CliError, notThisService, unreachable, type CliErrorCode } from './errors';
import { listenSecretFor } from './listen-secrets';

/** What a registered endpoint is given to answer (docs/api.md, "Receiving webhooks"). */
const FORWARD_TIMEOUT_MS = 8_000;
const RECONNECT_MS = 1_000;

/** The stream's refusals (`{"error", "message"}`), as the CLI's error codes (forbidden reads as a refused credential, as for every command). */
const REFUSALS: Record<string, CliErrorCode> = {
  unauthorized: 'unauthorized',
  forbidden: 'unauthorized',
  rate_limited: 'unavailable',
  not_found: 'not_found',
  invalid: 'invalid',
  invalid_input: 'invalid',
  conflict: 'conflict',
  unavailable: 'unavailable',
};

/** Why the stream could not be opened: the service's refusal, or something else answering at --url. */
async function refusal(response: Response, baseUrl: string, credential: DevCredential): Promise<CliError> {
  const answer = (await response.json().catch(() => null)) as { error?: unknown; message?: unknown } | null;
  const code = typeof answer?.error === 'string' ? REFUSALS[answer.error] : undefined;
  if (!code) return notThisService(baseUrl);
  const message = typeof answer?.message === 'string' ? answer.message : `the service answered ${response.status}`;
  return new CliError(code, answer?.error === 'unauthorized' ? `${message} ${hintFor(credential)}` : message);
}

/** The secret the forwards are signed with, and how listen tells about it. */
function signingSecret(credential: DevCredential, renew: boolean): { secret: string; line: string; fields: Record<string, unknown> } {
  if (credential.kind === 'admin') {
    const secret = newSigningSecret();
    return { secret, line: `Webhook signing secret of this session: ${secret}`, fields: { secret } };
  }
  const kept = listenSecretFor(credential.bearer, { renew, env: process.env });
  const home = homedir();
  const where = home && kept.file.startsWith(`${home}/`) ? `~${kept.file.slice(home.length)}` : kept.file;
  const line = kept.made
    ? `Webhook signing secret of this API key (new): ${kept.secret}\n(kept in ${where} for the next sessions; --new-secret makes another)`
    : `Webhook signing secret of this API key (as last time): ${kept.secret}\n(kept in ${where}; --new-secret makes another)`;
  return { secret: kept.secret, line, fields: { secret: kept.secret, secretFile: kept.file, newSecret: kept.made } };
}

/** Parses `--forward-to`: an http(s) URL. */
export function localUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected a URL such as http://127.0.0.1:4000/hooks');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('expected an http:// or https:// URL');
  return url.toString();
}

/** One Server-Sent Event. */
interface StreamEvent {
  event: string;
  data: string;
  id: string | null;
}

/** Splits the stream into events (the text/event-stream format: field lines, a blank line ends an event). */
class EventStreamParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | null = null;

  feed(text: string): StreamEvent[] {
    this.buffer += text;
    const out: StreamEvent[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      // A lone CR at the end may be the first half of CRLF: wait for more.
      if (end === -1 || (this.buffer[end] === '\r' && end === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (this.data.length > 0) out.push({ event: this.event || 'message', data: this.data.join('\n'), id: this.id });
        this.data = [];
        this.event = '';
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') this.data.push(value);
      else if (field === 'event') this.event = value;
      else if (field === 'id') this.id = value;
    }
    return out;
  }
}

interface Delivery {
  at: Date;
  type: string;
  eventId: string;
  deliveryId: string;
  status: number | null;
  error: string | null;
  durationMs: number;
}

const pad = (n: number) => String(n).padStart(2, '0');
const clock = (at: Date) => `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;

function describe(error: unknown): string {
  const failure = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (failure.name === 'TimeoutError') return `timed out after ${FORWARD_TIMEOUT_MS} ms`;
  return [failure.code ?? failure.cause?.code, failure.cause?.message ?? failure.message].filter(Boolean).join(' ') || String(error);
}

/** POSTs the envelope, exactly as received, with the contract's headers, signed with the session secret. */
async function forward(target: string, secret: string, body: string, stop: AbortSignal): Promise<Delivery> {
  const envelope = JSON.parse(body) as { id: string; type: string };
  const timestamp = Math.floor(Date.now() / 1000);
  const deliveryId = newId('wd');
  const headers = deliveryHeaders({ deliveryId, eventType: envelope.type, timestamp, signature: signatureHeader(secret, timestamp, body) });
  const at = new Date();
  const started = performance.now();
  const done = (status: number | null, error: string | null): Delivery => ({
    at,
    type: envelope.type,
    eventId: envelope.id,
    deliveryId,
    status,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  try {
    // The same client and headers as the service's deliveries (no fetch extras); a redirect is an answer, never followed.
    const response = await request(target, { method: 'POST', headers, body, signal: AbortSignal.any([stop, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]) });
    const status = response.statusCode;
    await response.body.dump().catch(() => undefined);
    return done(status, null);
  } catch (error) {
    return done(null, describe(error));
  }
}

export interface ListenSessionOptions {
  /** The service's address, without a trailing slash. */
  baseUrl: string;
  credential: DevCredential;
  /** One JSON object a line instead of text. */
  json: boolean;
  forwardTo: string;
  /** A sandbox environment (operators); a key listens to its own. */
  environmentId?: string;
  /** With an API key: make and keep a new signing secret. */
  newSecret?: boolean;
}

/** Runs until Ctrl-C (then exits 0), or throws a CliError when the stream cannot be opened. */
export async function listenSession(options: ListenSessionOptions): Promise<void> {
  const { baseUrl, credential, json } = options;
  let signing: ReturnType<typeof signingSecret> | undefined;
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const say = (text: string, fields: Record<string, unknown>) => process.stdout.write(json ? `${JSON.stringify(fields)}\n` : `${text}\n`);

  let after: string | null = null;
  let connectedOnce = false;
  /** While the service is away, said once: reconnection attempts are quiet until one succeeds. */
  let lostSaid = false;
  while (!stopping.signal.aborted) {
    try {
      const query = new URLSearchParams();
      if (options.environmentId) query.set('environmentId', options.environmentId);
      if (after) query.set('after', after);
      const response = await fetch(`${baseUrl}${LISTEN_PATH}?${query}`, {
        headers: { authorization: `Bearer ${credential.bearer}`, accept: 'text/event-stream' },
        signal: stopping.signal,
      });
      // 503: the service is starting (its port is bound before it is ready); after a restart, wait for it like for a connection.
      if (response.status === 503 && connectedOnce) throw new Error('the service is starting');
      if (response.status === 503) throw new CliError('unavailable', `the service at ${baseUrl} is starting; try again in a moment.`);
      if (!response.ok || !response.body) throw await refusal(response, baseUrl, credential);
      // Another program answering at --url (a web server, a proxy's page) is not a stream to wait on.
      if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        await response.body.cancel().catch(() => undefined);
        throw notThisService(baseUrl);
      }
      const parser = new EventStreamParser();
      const decoder = new TextDecoder();
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        for (const event of parser.feed(decoder.decode(chunk, { stream: true }))) {
          if (event.event === LISTEN_READY) {
            const ready = JSON.parse(event.data) as ListenReady;
            after ??= String(ready.after);
            if (!connectedOnce) {
              signing = signingSecret(credential, Boolean(options.newSecret));
              say(`Ready! Forwarding events of ${ready.environmentId} to ${options.forwardTo} (Ctrl-C to quit)\n${signing.line}`, {
                ready: true,
                environmentId: ready.environmentId,
                forwardTo: options.forwardTo,
                ...signing.fields,
              });
            } else {
              say(`Reconnected; resuming after event #${after}.`, { reconnected: true, after: Number(after) });
            }
            connectedOnce = true;
            lostSaid = false;
          } else if (event.event === LISTEN_WEBHOOK) {
            const delivery = await forward(options.forwardTo, signing!.secret, event.data, stopping.signal);
            // The highest sequence forwarded: a late-committed event can arrive after a higher one, and must not rewind a resume.
            if (event.id && (after === null || Number(event.id) > Number(after))) after = event.id;
            if (stopping.signal.aborted) break;
            const answer = delivery.error ? `error: ${delivery.error}` : String(delivery.status);
            say(`${clock(delivery.at)}  ${delivery.type}  ${delivery.eventId}  → ${answer} (${delivery.durationMs} ms)`, {
              at: delivery.at.toISOString(),
              type: delivery.type,
              eventId: delivery.eventId,
              deliveryId: delivery.deliveryId,
              status: delivery.status,
              error: delivery.error,
              durationMs: delivery.durationMs,
            });
          }
        }
      }
    } catch (error) {
      if (stopping.signal.aborted) break;
      // Refused, or never connected: report it (a service restarting later is what reconnecting is for).
      if (error instanceof CliError) throw error;
      if (!connectedOnce) throw unreachable(baseUrl, networkReason(error));
    }
    if (stopping.signal.aborted) break;
    // A stream that ended without its `ready` event was not this service's.
    if (!connectedOnce) throw notThisService(baseUrl);
    // The service went away (restart, network): resume from the last event seen, so nothing committed meanwhile is lost.
    if (!lostSaid) say(`Connection to ${baseUrl} lost; reconnecting…`, { disconnected: true });
    lostSaid = true;
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  say('Stopped.', { stopped: true });
  // Idle keep-alive sockets to the receiver would hold the process open for a while.
  process.exit(0);
}


/** The network code of a failed connection (ECONNREFUSED, ENOTFOUND…), for the unreachable message. */
function networkReason(error: unknown): string {
  const failure = error as { code?: string; cause?: { code?: string } };
  return failure.cause?.code ?? failure.code ?? 'network error';
}
