/**
 * Faults a simulator injects into its next N calls of one operation, so tests
 * and local runs can rehearse every way a real gateway misbehaves.
 */
import type { Fault, SimOperation } from '../../contract/sandbox-controls';

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
