import type { GatewayName } from '../contract/enums';
import type { Fault, PaymentOutcome, RefundOutcome, RefundSettlement, SimOperation, SubscriptionOutcome } from '../contract/sandbox-controls';

/**
 * The seam to the sandbox wing (server/sandbox/ implements it): the
 * simulators this process runs, driven by gateway reference. Null where none
 * runs (production, any service without the embedded demo), so nothing of
 * the wing is loaded there.
 */
export interface SandboxSimulators {
  running(): { gateway: GatewayName; url: string }[];
  /**
   * Does what the customer or the gateway did, and resolves once the
   * simulator's webhooks for it were attempted: null, or the simulator's
   * reason for refusing it in the record's state (paying a paid payment).
   */
  payment(gateway: GatewayName, gatewayRef: string, outcome: PaymentOutcome): Promise<string | null>;
  subscription(gateway: GatewayName, gatewayRef: string, outcome: SubscriptionOutcome): Promise<string | null>;
  /**
   * A pending refund settles (the money went back) or fails at its gateway,
   * named by the gateway's refund id (or a Pix devolução's rtrId); resolves
   * like `payment`.
   */
  refund(gateway: GatewayName, refundRef: string, outcome: RefundOutcome): Promise<string | null>;
  /** Whether the gateway's refunds asked for from now on stay pending until `refund` (`later`) or settle in the call (`at-once`). */
  refundSettlement(gateway: GatewayName, mode: RefundSettlement): Promise<void>;
  injectFault(gateway: GatewayName, operation: SimOperation, fault: Fault, times: number): void;
  clearFaults(gateway: GatewayName): void;
  /** Sends the last webhooks again, optionally newest first; answers their event names. */
  replayWebhooks(gateway: GatewayName, options: { last: number; reverse: boolean }): Promise<string[]>;
  close(): Promise<void>;
  /**
   * Where every sandbox environment has simulators of its own (the embedded
   * demo and development, server/sandbox/fleet.ts): the ones wired to this
   * environment, or null when it has none. Absent where one set serves all.
   */
  forEnvironment?(environmentId: string): SandboxSimulators | null;
  /**
   * Wires a sandbox environment to simulators of its own: gateway accounts
   * for the three gateways pointing at them and, when it has none, routing
   * rules. Absent where simulators are not started per environment.
   */
  wireEnvironment?(environmentId: string): Promise<void>;
}
