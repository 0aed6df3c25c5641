/**
 * What a call through a gateway adapter can answer with, per operation. The
 * adapters raise these (server/gateways); the use cases that make the call
 * include them in their own declarations.
 */
import { raises } from './raises';

export const GATEWAY_CALLS = {
  /** A 422-style refusal mapped onto the request, the method missing at that gateway, or the gateway failing. */
  createPayment: raises(['invalid_input', 'method_not_supported', 'gateway_error']),
  getPayment: raises(['gateway_error']),
  /** `not_implemented` where the gateway has no payment cancel. */
  cancelPayment: raises(['not_implemented', 'gateway_error']),
  createSubscription: raises(['invalid_input', 'gateway_error']),
  getPlan: raises(['gateway_error']),
  cancelSubscription: raises(['gateway_error']),
} as const;
