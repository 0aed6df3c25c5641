/**
 * How this service behaves where a merchant needs more than the routes and
 * schemas say: error bodies, the order of checks, limits, idempotency. It is
 * part of the OpenAPI document's description, the authoritative contract.
 */
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_RATE_LIMITS, JSON_MAX_DEPTH, METADATA_MAX_BYTES, METADATA_MAX_DEPTH } from './limits';

const kib = (bytes: number) => `${bytes / 1024} KiB`;

export const CONTRACT_READINGS = `
## Readings of the contract

1. **Error bodies** are exactly \`{"error": "<code>", "message"?: string, ...}\` plus only the extra fields named for that code (\`issues\`, \`provider\`, \`method\`, \`action\`, \`status\`, \`limit\`, \`used\`). \`issues[]\` elements are \`{path, message}\`. Unknown routes answer 404 \`not_found\` in the same shape.
2. **Payment cancel** checks, in order: not found → 404; method \`pix\` → 400 \`cannot_cancel_pix\`; \`paid\` → 409 \`cannot_cancel_paid\`; \`canceled\`, \`expired\`, \`failed\` → 409 \`already_canceled\` with \`status\`; any other status the gateway cannot cancel (for example \`processing\`) → 409 \`cannot_cancel_status\` with \`status\`; no \`gatewayRef\` → 409 \`missing_gateway_ref\`.
3. **Subscription initial status**: \`trialing\` when \`trialDays > 0\`, else \`active\`. Subscriptions are card-only; \`method\` is always \`card\` and routing uses the SUBSCRIPTION rule.
4. **\`GET /v1/subscriptions/{id}\`** answers a malformed id with 404 \`not_found\`; payment routes answer 400 \`invalid_id\`.
5. **Precedence**: authentication (401) first; then the route's rate limit (429), which counts every authenticated request to that route, valid or not; then body parsing and validation (400), including what the routed gateway requires (installment ceiling, phone, plan id, and on gateway_c the plan's amount, interval and trial: routing is resolved quietly first to know these rules); then platform billing (402) where it applies; then routing's own refusals (409); then the gateway (502), a plan the gateway failed to answer for included.
6. **Rate-limit headers** on every response of an authenticated route: \`X-RateLimit-Limit\` (requests per one-minute window), \`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\` (Unix time in seconds when the window resets), and \`Retry-After\` (seconds) on 429. Limits are per API key and configurable per key; defaults: ${DEFAULT_RATE_LIMITS.payments_create}/min \`POST /v1/payments\`, ${DEFAULT_RATE_LIMITS.payments_sync}/min for payment \`sync\`, the same limit (payment sync's setting) for subscription \`sync\`, ${DEFAULT_RATE_LIMITS.payments_cancel}/min for payment \`cancel\`, and the same limit (payment cancel's setting) for \`POST /v1/payments/{id}/refunds\` (separate quotas), ${DEFAULT_RATE_LIMITS.default}/min for every other authenticated route (a separate shared quota, so \`GET /v1/auth/test\` never consumes a payment quota).
7. **Repeated \`externalId\` with a different payload** returns the existing resource unchanged (201); the difference is logged. Every create answered with a resource that already existed carries the response header \`Idempotent-Replayed: true\`.
8. **Metadata rules** (JSON object, at most ${METADATA_MAX_BYTES} bytes serialized, nested at most ${METADATA_MAX_DEPTH} levels) apply to subscriptions as well as payments.
9. **\`currency\`** other than \`BRL\` is \`invalid_input\`; \`method\` and \`interval\` accept upper case and are answered lower case.
10. **Outbound event \`provider\`** is the gateway name (\`gateway_a\`…).
11. **Webhook delivery** is attempted once, right after the state change is committed, and is never lost if the process dies in between (it is sent when the service comes back). "No automatic retry" means no backoff schedule of repeated attempts after a delivery has completed as \`FAILED\`.

12. **gateway_c plans fix the price**: a subscription routed to gateway_c must name an existing plan (\`gateway.gateway_c.planId\`) whose amount and interval are the request's, and whose trial days are the request's \`trialDays\` when it is given (left out, the subscription takes the plan's trial); otherwise 400 \`invalid_input\` at the field that differs, naming the plan's value.
13. **Outbound webhooks** (not HTTP routes of this document): deduplicate on the envelope \`id\` (\`evt_…\`), which the signature covers, never on the unsigned \`X-Service-Delivery-Id\`. A resend keeps the original body, timestamp and signature, so a receiver that refuses timestamps older than 300 seconds may still accept a correctly signed resend of an event \`id\` it has never processed. Rotating an endpoint's secret keeps signing with the old secret until a chosen time (24 hours by default), then with the new one; \`X-Service-Signature\` always carries exactly one \`sha256=\` value, so a receiver configures the new secret beside the old one during that overlap.
14. **Monthly transaction quota** (402 \`billing_monthly_tx_limit_reached\`, \`POST /v1/payments\` only): a create is admitted against the quota before its gateway is called, by one atomic conditional increment in the database shared by every node, so the payments accepted in a month never exceed the limit, whatever runs concurrently. \`used\` is the exact number of payments the gateways accepted this month (UTC). A create that ended in 502 stays admitted until a retry with its \`externalId\` completes it (a retry is never refused by the quota); concurrent creates of one \`externalId\` are one transaction; a create refused by validation, routing or the gateway does not count. A limit set below what is already used refuses every further create of the month.
15. **Catching up on events** (\`GET /v1/events\`): the key's environment's events, oldest first in commit order, each exactly the envelope a delivery of it carries (same \`id\`, \`type\`, \`createdAt\`, \`data\`). \`after\` is the id of the last event the caller processed; the list continues strictly after it, and paging never skips or repeats an event, including one whose transaction commits after a later-numbered one. Events are kept at least 30 days; an \`after\` that is not an event of the environment (unknown, another environment's, or pruned) is 400 \`invalid_input\` at \`after\`.
16. **Routing fallback**: a routing rule names an ordered list of gateways (the first is the primary), optionally weighted to split new creates deterministically by \`externalId\`. A create moves to the next gateway only when the one tried is unavailable (connection refused or reset, timeout, 5xx, or skipped because it has been failing) and nothing was answered yet; a refusal (4xx) never moves it. Whatever an abandoned attempt may have created is canceled at its gateway where the gateway can cancel (a Pix code nobody was shown expires), and its later webhooks never change the resource. The resource's \`gateway\` is the one that took it; the attempts are kept as its routing trace for operators, not in this API. Retries of an \`externalId\` answer the resource wherever it landed.

## Request bodies

Bodies are JSON objects of at most ${kib(DEFAULT_MAX_BODY_BYTES)} by default (a larger body is 400 \`invalid_input\`). A non-empty body is read as JSON whatever its \`Content-Type\`; a body that is not valid JSON, or is announced in a charset other than UTF-8, is 400 \`invalid_json\`. POST routes documented without a body accept an empty body with no \`Content-Type\`. Objects and arrays may nest at most ${JSON_MAX_DEPTH} levels deep in a body (checked before it is parsed; deeper is 400 \`invalid_input\`). Fields are never coerced: \`"100"\` is not an amount and \`"false"\` is not a boolean. **Unknown fields are refused**: a field the schema does not name, at any level (for example \`card.instalments\`), is 400 \`invalid_input\` with an issue at that field's path; nothing is silently dropped. Query parameters the route does not name are ignored.

## Text fields

Every text field that is stored or sent to a gateway is checked before anything else happens: control characters (U+0000–U+001F, U+007F–U+009F; NUL included) and unpaired surrogates are 400 \`invalid_input\` naming the field, in bodies and in query strings (\`?externalId=\`) alike; \`metadata\` keys and string values may contain line breaks and tabs but no other control character. Lengths (\`maxLength\`) count characters, that is Unicode code points, not bytes and not UTF-16 units.

## Malformed requests

A request target that is not a path (\`*\`, or an absolute URL) is 404 \`not_found\`; a request the HTTP parser cannot read (broken request line, headers too large) is answered \`{"error": "invalid_input", ...}\` with status 400 (431 for headers too large) and the connection is closed. An unexpected failure is always 500 \`internal_error\` with the request id in \`X-Request-Id\`; its details go to the service's log only.

## Request ids

Every response carries \`X-Request-Id\` (your own, when you send a plain one of up to 128 characters); quote it when reporting a problem.
`;
