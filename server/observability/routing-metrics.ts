/** Routing's counters (decision 21): creates moved to a fallback gateway, and circuit-breaker state changes. */
import { Counter } from 'prom-client';
import { registry } from './metrics';

export const routingFallbacks = new Counter({
  name: 'routing_fallbacks_total',
  help: 'Creates that left a gateway for the next one of their rule, by routing method, gateway left and why (unavailable, timeout, skipped).',
  labelNames: ['method', 'from', 'reason'] as const,
  registers: [registry],
});

export const breakerTransitions = new Counter({
  name: 'routing_breaker_transitions_total',
  help: "Changes of a gateway's circuit breaker seen by this node, by gateway and the state entered (open, half_open, closed).",
  labelNames: ['gateway', 'state'] as const,
  registers: [registry],
});
