/**
 * The contract's numbers, in one place: the request schemas, the OpenAPI
 * document's readings and the service's configuration defaults all read them.
 */
import type { RateLimitBucket } from '../domain/rate-limits';

/** Default requests per one-minute window, per API key and route bucket (each key may have its own). */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitBucket, number>> = {
  payments_create: 30,
  payments_sync: 10,
  payments_cancel: 10,
  default: 600,
};

/** Default largest request body, in bytes. */
export const DEFAULT_MAX_BODY_BYTES = 65_536;

/** A webhook receiver must answer 2xx within this time. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 8_000;

/** `metadata`: a JSON object of at most this many bytes serialized, and this many levels deep. */
export const METADATA_MAX_BYTES = 4096;
export const METADATA_MAX_DEPTH = 4;

/**
 * Longest text of each kind, in characters (Unicode code points: what a
 * PostgreSQL `varchar(n)` counts, and what JSON Schema's `maxLength` means).
 * The request schemas, the OpenAPI document and the entities' column lengths
 * all read these, so a value the schema accepts always fits where it is kept.
 */
export const TEXT_LIMITS = {
  /** `externalId`, stored and sent to the gateway as a reference. */
  externalId: 255,
  /** `customer.name`, `customer.email`: stored, and sent to the gateway. */
  customerName: 255,
  customerEmail: 255,
  /** CPF or CNPJ as typed (punctuation allowed); never stored in plaintext. */
  customerDocument: 32,
  customerPhone: 32,
  /** `gateway.gateway_c.planId`, stored with the subscription. */
  planId: 255,
  /** `returnUrl` of a hosted checkout, handed to the gateway. */
  returnUrl: 2048,
  /** A refund's `reason`, stored and sent to the gateway. */
  refundReason: 255,
  /** Why a gateway refused or failed a refund, as kept from its answer. */
  refundFailureReason: 255,
  /** Names of organizations, projects, API keys; webhook endpoint descriptions. */
  name: 255,
  description: 255,
  /** URLs kept by the operator API: gateway base URLs, webhook endpoint URLs. */
  url: 2048,
  /** Ids of the service's own records (`pay_…`, `org_…`, `gwa_…`) and event types. */
  id: 64,
  eventType: 64,
} as const;

/**
 * How deep a JSON request body may nest (objects and arrays), checked on the
 * raw text before anything parses or walks it: a body nested thousands of
 * levels deep is refused before it can exhaust the stack.
 */
export const JSON_MAX_DEPTH = 32;
