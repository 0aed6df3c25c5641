/**
 * POST /webhooks/{gateway}/{accountId}: where gateways send their
 * notifications (outside the public /v1 contract). The account in the path
 * selects the credentials that authenticate the sender; nothing is changed
 * before that succeeds. Answers tell the gateway whether to retry:
 * 2xx done (also for duplicates), 401/400/404 never retry, 503 retry later.
 */
import express, { type Response, type Router } from 'express';
import { TEXT_LIMITS } from '../contract/limits';
import { textProblem } from '../contract/schemas/text';
import { GATEWAY_NAMES, type GatewayName } from '../contract/enums';
import { applyGatewayEvent, type EventOutcome } from '../domain/inbound/apply-event';
import { WebhookRejectedError, type WebhookRejection } from '../gateways';
import { Refusal } from '../domain/refusal';
import type { Services } from '../services';
import { jsonNestedDeeperThan, tooDeepMessage } from './json-body';

const MAX_WEBHOOK_BYTES = 256 * 1024;

/**
 * Every answer this edge gives, in one place: the gateway reads only the
 * status (2xx done, 4xx never retry, 503 retry later); the body names why.
 */
const ANSWERS = {
  unknown_account: { status: 404, body: { error: 'not_found', message: 'Unknown gateway account.' } },
  retry_later: { status: 503, body: { error: 'retry_later' } },
} as const;

const rejection = (reason: WebhookRejection, message?: string) => ({
  status: reason === 'malformed_payload' ? 400 : 401,
  body: message ? { error: reason, message } : { error: reason },
});

const reply = (res: Response, answer: { status: number; body: object }) => void res.status(answer.status).json(answer.body);

export function inboundWebhooks(services: Services): Router {
  const router = express.Router();
  router.post('/webhooks/:gateway/:accountId', express.raw({ type: () => true, limit: MAX_WEBHOOK_BYTES }), async (req, res) => {
    const gateway = req.params.gateway as GatewayName;
    const em = services.db.fork();
    const accountId = req.params.accountId ?? '';
    // An id no account can have (too long, control characters) is unknown without asking the database.
    const plausible = GATEWAY_NAMES.includes(gateway) && accountId !== '' && textProblem(accountId, { max: TEXT_LIMITS.id }) === null;
    const route = plausible ? await services.gateways.forAccount(em, accountId) : null;
    if (!route || route.gateway !== gateway) {
      return reply(res, ANSWERS.unknown_account);
    }
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    // Bounded before the adapter parses it and anything walks it: no gateway nests its notifications this deep.
    if (jsonNestedDeeperThan(rawBody)) {
      req.log.warn({ gateway }, 'gateway webhook rejected: nested too deep');
      return reply(res, rejection('malformed_payload', tooDeepMessage()));
    }
    try {
      const events = await route.adapter.parseWebhook({ headers: req.headers, rawBody });
      const outcomes: EventOutcome[] = [];
      for (const event of events) {
        outcomes.push(await applyGatewayEvent(em.fork(), services, { accountId: route.accountId, environmentId: route.environmentId, gateway, eventClockResolutionMs: route.adapter.eventClockResolutionMs }, event));
      }
      req.log.info({ gateway, outcomes }, 'gateway webhook processed');
      res.status(200).json({ received: true, outcomes });
    } catch (error) {
      if (error instanceof WebhookRejectedError) {
        req.log.warn({ gateway, reason: error.reason }, 'gateway webhook rejected');
        return reply(res, rejection(error.reason));
      }
      // The gateway could not confirm the event (thin webhooks are confirmed by fetching), or storage failed: ask for a redelivery.
      req.log.error({ gateway, err: error instanceof Refusal ? error.cause ?? error : error }, 'gateway webhook not processed');
      reply(res, ANSWERS.retry_later);
    }
  });
  return router;
}
