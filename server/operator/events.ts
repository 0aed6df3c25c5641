/** One event with its envelope and deliveries, for its page in the dashboard; any member of its organization reads it. */
import { z } from 'zod';
import { RecordId } from '../contract/schemas/text';
import { OutboxEvent } from '../db/entities';
import { eventDetail } from '../domain/listing/event-detail';
import { notFound } from '../domain/refusal';
import { recordAccess } from './access';
import { operatorProcedure, operatorT as t } from './procedure';

export const EventGetInput = z.strictObject({ eventId: RecordId });

export const eventsRouter = t.router({
  get: operatorProcedure.input(EventGetInput).query(async ({ ctx, input }) => {
    const missing = notFound('Event', input.eventId);
    const event = await ctx.em.findOne(OutboxEvent, { id: input.eventId });
    if (!event) throw missing;
    await recordAccess(ctx, event.environment.id, 'read', missing);
    return eventDetail(ctx.em, event);
  }),
});
