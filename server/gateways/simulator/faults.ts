/**
 * Faults a simulator injects into its next N calls of one operation, so tests
 * and local runs can rehearse every way a real gateway misbehaves.
 */
import { z } from 'zod';
import type { SimOperation } from '../../contract/simulator-operations';

export const faultSchema = z.discriminatedUnion('kind', [
  /** Answers normally after a delay. */
  z.object({ kind: z.literal('latency'), ms: z.number().int().min(0).max(600_000) }),
  /** Never answers; the connection stays open until the client gives up. */
  z.object({ kind: z.literal('hang') }),
  z.object({ kind: z.literal('server_error'), status: z.number().int().min(500).max(599).optional() }),
  /** A 4xx the adapter does not expect (not a validation refusal). */
  z.object({ kind: z.literal('client_error'), status: z.number().int().min(400).max(499).optional() }),
  /** The gateway's 422-style refusal naming one of its own fields. */
  z.object({ kind: z.literal('validation'), field: z.string().min(1).optional() }),
  /** 200 with a body that is not what the protocol promises. */
  z.object({ kind: z.literal('malformed'), body: z.string().optional() }),
  /** The operation takes effect, then the connection is destroyed without an answer. */
  z.object({ kind: z.literal('drop_response') }),
]);
export type Fault = z.infer<typeof faultSchema>;

export class FaultQueue {
  private readonly pending = new Map<SimOperation, { fault: Fault; remaining: number }[]>();

  inject(operation: SimOperation, fault: Fault, times = 1): void {
    const queue = this.pending.get(operation) ?? [];
    queue.push({ fault, remaining: Math.max(1, Math.trunc(times)) });
    this.pending.set(operation, queue);
  }

  /** The fault for this call, if any; each call uses one of its N. */
  take(operation: SimOperation): Fault | undefined {
    const queue = this.pending.get(operation);
    const head = queue?.[0];
    if (!queue || !head) return undefined;
    head.remaining -= 1;
    if (head.remaining <= 0) queue.shift();
    return head.fault;
  }

  clear(): void {
    this.pending.clear();
  }
}
