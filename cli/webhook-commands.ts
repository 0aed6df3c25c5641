/** `webhook endpoint …` and `webhook delivery …`: outbound webhook endpoints and their deliveries. */
import { InvalidArgumentError, type Command } from 'commander';
import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from '../server/contract/delivery-statuses';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../server/contract/event-types';
import { examples, type CliTools } from './tools';

/** `payment.paid,payment.failed` → the list, each checked against the known event types. */
function eventTypes(value: string): WebhookEventType[] {
  const types = value.split(',').map((t) => t.trim()).filter(Boolean);
  const unknown = types.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw new InvalidArgumentError(`unknown event type ${unknown.join(', ')} (known: ${WEBHOOK_EVENT_TYPES.join(', ')})`);
  return types as WebhookEventType[];
}

const RETRIES_HELP =
  'on: a delivery failed by timeout, network error or 5xx is attempted again (about 1m, 5m, 30m, 2h, 8h, 24h) before it is FAILED; off (the default): one attempt';

function positive(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('expected a positive integer');
  return Number(value);
}

/** `24h`, `30m`, `90s`, `7d` → seconds; `now` stops the old secret at once. */
function overlap(value: string): number | 'now' {
  if (value === 'now') return 'now';
  const match = /^([1-9]\d*)([smhd])$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected now or a duration such as 90s, 30m, 24h, 7d');
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[match[2] as 's' | 'm' | 'h' | 'd'];
}

/** `on`/`off` → the automatic retries switch (decision 23). */
function onOff(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidArgumentError('expected on or off');
}

/** `97% of 34` (attempts answered 2xx in time over the last 24 h), or `-` when nothing was attempted. */
function successText(health: { attempts24h: number; sent24h: number; successRate24h: number | null }): string {
  if (health.successRate24h === null) return '-';
  return `${Math.floor(health.successRate24h * 100)}% of ${health.attempts24h}`;
}

/** `45s`, `12m`, `3h 5m`, `2d 4h`; `-` when nothing waits. */
function ageText(seconds: number | null): string {
  if (seconds === null) return '-';
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
  return `${Math.floor(seconds / 86_400)}d ${Math.floor((seconds % 86_400) / 3600)}h`;
}

export function registerWebhookCommands(program: Command, { client, run, oneOf }: CliTools): void {
  const webhook = program.command('webhook').description('outbound webhooks: endpoints and deliveries');

  const endpoint = webhook.command('endpoint').description('webhook endpoints of an environment');
  const create = endpoint
    .command('create <url>')
    .description('register an endpoint at <url> (public https://); its signing secret is printed this once')
    .requiredOption('--env <environmentId>')
    .option('--events <types>', 'comma-separated event types (default: all)', eventTypes)
    .option('--description <text>')
    .option('--disabled', 'register it disabled')
    .option('--retries <on|off>', RETRIES_HELP, onOff)
    .action(run(async (url: string, o: { env: string; events?: WebhookEventType[]; description?: string; disabled?: boolean; retries?: boolean }) =>
      client().webhooks.createEndpoint.mutate({ environmentId: o.env, url, enabledEvents: o.events, description: o.description, enabled: !o.disabled, retries: o.retries }),
    ));
  examples(create, 'webhook endpoint create https://shop.example.com/hooks --env env_… --events payment.paid,payment.failed');
  examples(
    endpoint
      .command('list')
      .description("every endpoint, or an environment's or a project's")
      .option('--env <environmentId>')
      .option('--project <projectId>')
      .action(run(async (o: { env?: string; project?: string }) => {
        const endpoints = await client().webhooks.listEndpoints.query({ environmentId: o.env, projectId: o.project });
        // The health in words for the table (the numbers stay under `health`).
        return endpoints.map((endpoint) => ({ ...endpoint, success24h: successText(endpoint.health), oldestPending: ageText(endpoint.health.oldestPendingAgeSeconds) }));
      }, {
        // What tells endpoints apart first: a narrow terminal drops the columns on the right.
        id: 'id',
        url: 'url',
        enabled: 'enabled',
        retries: 'retries',
        success24h: 'ok 24h',
        oldestPending: 'oldest pending',
        enabledEvents: 'events',
        environmentId: 'environment',
        description: 'description',
        createdAt: 'created',
      })),
    'webhook endpoint list --env env_…',
  );
  const update = endpoint
    .command('update <endpointId>')
    .description('change the URL, the event types, the automatic retries, or enable/disable')
    .option('--endpoint-url <url>', 'new receiver URL (checked like at registration)')
    .option('--events <types>', 'comma-separated event types', eventTypes)
    .option('--all-events', 'receive every event type')
    .option('--description <text>')
    .option('--enable')
    .option('--disable')
    .option('--retries <on|off>', RETRIES_HELP, onOff)
    .action(run(async (endpointId: string, o: { endpointUrl?: string; events?: WebhookEventType[]; allEvents?: boolean; description?: string; enable?: boolean; disable?: boolean; retries?: boolean }) => {
      if (o.enable && o.disable) throw new InvalidArgumentError('--enable and --disable exclude each other');
      if (o.events && o.allEvents) throw new InvalidArgumentError('--events and --all-events exclude each other');
      return client().webhooks.updateEndpoint.mutate({
        endpointId,
        url: o.endpointUrl,
        enabledEvents: o.allEvents ? [] : o.events,
        enabled: o.enable ? true : o.disable ? false : undefined,
        description: o.description,
        retries: o.retries,
      });
    }));
  examples(update, 'webhook endpoint update whe_… --retries on', 'webhook endpoint update whe_… --disable', 'webhook endpoint update whe_… --events payment.paid --endpoint-url https://shop.example.com/hooks/v2');
  const rotate = endpoint
    .command('rotate-secret <endpointId>')
    .description('replace the signing secret; the new one is printed this once. The old one keeps signing new deliveries until the overlap ends, then the new one does')
    .option('--overlap <duration>', 'how long the old secret keeps signing: 90s, 30m, 24h, 7d, or now (default 24h)', overlap)
    .action(run(async (endpointId: string, o: { overlap?: number | 'now' }) => client().webhooks.rotateSecret.mutate({ endpointId, keepPreviousFor: o.overlap })));
  examples(rotate, 'webhook endpoint rotate-secret whe_…', 'webhook endpoint rotate-secret whe_… --overlap now');

  const delivery = webhook.command('delivery').description('deliveries of events to endpoints, with their attempts');
  const list = delivery
    .command('list')
    .description('deliveries, newest event first (the table is a summary: --json or `delivery show` for everything)')
    .option('--env <environmentId>')
    .option('--endpoint <endpointId>')
    .option('--status <status>', WEBHOOK_DELIVERY_STATUSES.join('|'), oneOf(WEBHOOK_DELIVERY_STATUSES))
    .option('--event-type <type>')
    .option('--event <eventId>')
    .option('--limit <n>', 'at most this many (default 50, max 500)', positive)
    .action(run(async (o: { env?: string; endpoint?: string; status?: WebhookDeliveryStatus; eventType?: string; event?: string; limit?: number }) =>
      client().webhooks.listDeliveries.query({ environmentId: o.env, endpointId: o.endpoint, status: o.status, eventType: o.eventType, eventId: o.event, limit: o.limit }).then((page) => page.items),
    {
      id: 'id',
      status: 'status',
      eventType: 'event',
      lastResponseStatus: 'http',
      attempts: 'tries',
      lastAttemptAt: 'last attempt',
      nextAttemptAt: 'next retry',
      lastError: 'error',
      endpointId: 'endpoint',
    }));
  examples(list, 'webhook delivery list --env env_… --status FAILED', "--json webhook delivery list --endpoint whe_… | jq -r '.[].id'");
  examples(
    delivery
      .command('show <deliveryId>')
      .description('the exact payload, timestamp, signature and every attempt')
      .action(run(async (deliveryId: string) => client().webhooks.getDelivery.query({ deliveryId }))),
    'webhook delivery show wd_…',
  );
  examples(
    delivery
      .command('resend <deliveryId>')
      .description('send the original body, timestamp and signature again, now, as a new attempt')
      .action(run(async (deliveryId: string) => client().webhooks.resend.mutate({ deliveryId }))),
    'webhook delivery resend wd_…',
  );
}
