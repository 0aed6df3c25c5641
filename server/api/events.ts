import { EventPage, ListEventsQuery } from '../contract/schemas/events';
import { LIST_EVENTS, listEvents, SETTLE_MS } from '../domain/events-feed/list';
import { authedProcedure } from './procedures';
import { routeErrors } from './route-errors';

export const listEventsProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/v1/events',
      tags: ['events'],
      summary: 'List events to catch up on missed webhooks',
      description:
        'The events of the key\'s environment, oldest first, each exactly the JSON body a webhook endpoint receives for it (same `id`, `type`, `createdAt` and `data`), whether or not an endpoint was registered. ' +
        'A delivery is attempted once unless its endpoint turned automatic retries on, and even retries end: a receiver that was down reads here what it missed, from the id of the last event it processed (`after`), page by page until `hasMore` is false, deduplicating on `id` as it does for deliveries. ' +
        'Pages carry no total count: a list counts only what is cheap, never a whole table. ' +
        'The order is the order the changes were committed; paging never skips or repeats an event. An event becomes listable once every earlier event number has committed, which is at once in practice ' +
        `(an event whose transaction was rolled back holds back the ones after it for ${SETTLE_MS / 1000} s at most). ` +
        'Events are kept at least 30 days (EVENT_RETENTION_DAYS of the service); an `after` older than that is 400 `invalid_input` at `after`: start again without it. ' +
        'Rate limit: the default per-key limit of the routes without one of their own.',
      protect: true,
    },
    errors: routeErrors(LIST_EVENTS),
  })
  .input(ListEventsQuery)
  .output(EventPage)
  .query(async ({ ctx, input }) => listEvents(ctx.em, ctx.principal.environmentId, input, ctx.services.config.events.retentionDays));
