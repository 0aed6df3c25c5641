/**
 * Failures of the gateway layer. What went wrong in detail is for logs (the
 * message and `cause`) and never carries credentials or a full tax document.
 */
import type { GatewayName, PaymentMethod } from '../contract/enums';
import type { ValidationIssue } from '../contract/errors';

/**
 * - `refused`: the gateway (or the adapter, before calling it) refused the
 *   request as asked; nothing exists there. `issues` are mapped onto our
 *   request's paths.
 * - `unavailable`: timeout, network failure, 5xx, unexpected 4xx, an answer
 *   that is not what the protocol says; retrying may work.
 * - `unsupported`: the gateway has no such action or method at all.
 * - `missing`: the gateway does not know the resource asked for by its
 *   reference (a read answered not found); asking again will not help.
 */
export type GatewayFailureKind = 'refused' | 'unavailable' | 'unsupported' | 'missing';

type Unsupported = { action: 'cancel' | 'refund' } | { method: PaymentMethod };

/**
 * How an `unavailable` call broke on the wire, before a complete answer:
 * - `refused_connection`: nothing reached the gateway, so nothing exists there.
 * - `reset`: the connection broke mid-call; the gateway may have acted.
 * - `timeout`: no answer in time; the gateway may have acted.
 */
export type TransportFailure = 'refused_connection' | 'reset' | 'timeout';

/** What an `unavailable` failure is known to be, besides its kind. */
interface Unavailable {
  /** The connection broke before a complete answer (http-client.ts). */
  transport?: TransportFailure;
  /** The gateway answered a status its protocol does not have for this call (responses.ts): the status. */
  status?: number;
}

/**
 * How a gateway call fails. The gateway layer speaks only of the gateway;
 * the core (domain/gateway-calls.ts) translates a failure into what the
 * merchant is told. Decisions read the kind, `transport` and `status`;
 * the message is for logs only.
 */
export class GatewayFailure extends Error {
  readonly transport?: TransportFailure;
  readonly status?: number;

  private constructor(
    readonly kind: GatewayFailureKind,
    readonly provider: GatewayName,
    message: string,
    readonly issues: readonly ValidationIssue[] = [],
    readonly unsupported?: Unsupported,
    cause?: unknown,
    unavailable: Unavailable = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'GatewayFailure';
    if (unavailable.transport) this.transport = unavailable.transport;
    if (unavailable.status !== undefined) this.status = unavailable.status;
  }

  /** Asking again may work: the gateway was unavailable, not refusing, lacking or missing anything. */
  get retryable(): boolean {
    return this.kind === 'unavailable';
  }

  static refused(provider: GatewayName, issues: ValidationIssue[]): GatewayFailure {
    return new GatewayFailure('refused', provider, `${provider} refused the request`, issues);
  }

  /** An answer that is not what the protocol says. `detail` is for logs: it never carries credentials or a full tax document. */
  static unavailable(provider: GatewayName, detail: string): GatewayFailure {
    return new GatewayFailure('unavailable', provider, `${provider}: ${detail}`);
  }

  /** The call broke before a complete answer; `cause` is the transport's error, for logs. */
  static transport(provider: GatewayName, detail: string, transport: TransportFailure, cause: unknown): GatewayFailure {
    return new GatewayFailure('unavailable', provider, `${provider}: ${detail}`, [], undefined, cause, { transport });
  }

  /** The gateway answered `status`, which its protocol does not have for this call; `what` names the call, for logs. */
  static answered(provider: GatewayName, what: string, status: number): GatewayFailure {
    return new GatewayFailure('unavailable', provider, `${provider}: ${what} answered ${status}`, [], undefined, undefined, { status });
  }

  /** `what` names the read, for logs. */
  static missing(provider: GatewayName, what: string): GatewayFailure {
    return new GatewayFailure('missing', provider, `${provider}: ${what} answered not found`);
  }

  static unsupported(provider: GatewayName, what: Unsupported): GatewayFailure {
    return new GatewayFailure('unsupported', provider, `${provider} does not support ${'action' in what ? what.action : what.method}`, [], what);
  }
}

export type WebhookRejection = 'missing_signature' | 'invalid_signature' | 'stale_timestamp' | 'malformed_payload';

/**
 * An inbound webhook that must not change anything. Authentication reasons
 * should be answered 401, `malformed_payload` 400.
 */
export class WebhookRejectedError extends Error {
  constructor(
    readonly provider: GatewayName,
    readonly reason: WebhookRejection,
  ) {
    super(`${provider} webhook rejected: ${reason}`);
    this.name = 'WebhookRejectedError';
  }
}

/** Adapter configuration that cannot work; names the bad fields, never their values. */
export class GatewayConfigError extends Error {
  constructor(provider: GatewayName, fields: string[]) {
    super(`${provider} credentials are invalid: check ${fields.join(', ') || 'the credentials object'}`);
    this.name = 'GatewayConfigError';
  }
}
