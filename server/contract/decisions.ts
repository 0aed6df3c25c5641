/**
 * How this service reads the places where the written contract is silent or
 * says two things. Published in the OpenAPI document, which the contract makes
 * authoritative.
 */
export const CONTRACT_READINGS = `
## Readings of the contract

1. **Error bodies** are exactly \`{"error": "<code>", "message"?: string, ...}\` plus only the extra fields named for that code (\`issues\`, \`provider\`, \`method\`, \`action\`, \`status\`, \`limit\`, \`used\`). \`issues[]\` elements are \`{path, message}\`. Unknown routes answer 404 \`not_found\` in the same shape.
2. **Payment cancel** checks, in order: not found → 404; method \`pix\` → 400 \`cannot_cancel_pix\`; \`paid\` → 409 \`cannot_cancel_paid\`; \`canceled\`, \`expired\`, \`failed\` → 409 \`already_canceled\` with \`status\`; any other status the gateway cannot cancel (for example \`processing\`) → 409 \`cannot_cancel_status\` with \`status\`; no \`gatewayRef\` → 409 \`missing_gateway_ref\`.
3. **Subscription initial status**: \`trialing\` when \`trialDays > 0\`, else \`active\`. Subscriptions are card-only; \`method\` is always \`card\` and routing uses the SUBSCRIPTION rule.
4. **\`GET /v1/subscriptions/{id}\`** answers a malformed id with 404 \`not_found\`; payment routes answer 400 \`invalid_id\`.
5. **Precedence**: authentication (401) first; then the route's rate limit (429), which counts every authenticated request to that route, valid or not; then body parsing and validation (400); then platform billing (402) where it applies; then routing (409); then the gateway (502).
6. **Rate-limit headers** on every response of an authenticated route: \`X-RateLimit-Limit\` (requests per one-minute window), \`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\` (Unix time in seconds when the window resets), and \`Retry-After\` (seconds) on 429. Limits are per API key and configurable per key; defaults: 30/min \`POST /v1/payments\`, 10/min each for payment \`sync\` and \`cancel\` (separate quotas), 600/min for every other authenticated route (a separate shared quota, so \`GET /v1/auth/test\` never consumes a payment quota).
7. **Repeated \`externalId\` with a different payload** returns the existing resource unchanged (201); the difference is logged.
8. **Metadata rules** (JSON object, at most 4096 bytes serialized, nested at most 4 levels) apply to subscriptions as well as payments.
9. **\`currency\`** other than \`BRL\` is \`invalid_input\`; \`method\` and \`interval\` accept upper case and are answered lower case.
10. **Outbound event \`provider\`** is the gateway name (\`gateway_a\`…).
11. **Webhook delivery** is attempted once, right after the state change is committed, and is never lost if the process dies in between (it is sent when the service comes back). "No automatic retry" means no backoff schedule of repeated attempts after a delivery has completed as \`FAILED\`.

## Request bodies

Bodies are JSON objects of at most 64 KiB by default (a larger body is 400 \`invalid_input\`). A non-empty body is read as JSON whatever its \`Content-Type\`; a body that is not valid JSON is 400 \`invalid_json\`. POST routes documented without a body accept an empty body with no \`Content-Type\`. Fields are never coerced: \`"100"\` is not an amount and \`"false"\` is not a boolean. Unknown fields are ignored.

## Request ids

Every response carries \`X-Request-Id\` (your own, when you send a plain one of up to 128 characters); quote it when reporting a problem.
`;
