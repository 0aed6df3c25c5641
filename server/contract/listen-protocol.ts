/**
 * The listen stream's wire vocabulary, shared by the service
 * (listen-stream.ts) and `payments-admin webhook listen`, which imports only
 * this: the CLI need not load the service's database code.
 */
export const LISTEN_PATH = '/internal/webhooks/listen';

/** SSE event names: `ready` once connected (`{environmentId, after}`), then one `webhook` per committed event (`id:` its sequence, `data:` its envelope). */
export const LISTEN_READY = 'ready';
export const LISTEN_WEBHOOK = 'webhook';

export interface ListenReady {
  environmentId: string;
  /** The sequence the stream started after; events after it are sent. */
  after: number;
}
