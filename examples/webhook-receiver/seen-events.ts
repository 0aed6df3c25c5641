/**
 * Event ids already taken on. The service may deliver an event more than
 * once (a manual resend, or a new attempt after an instance stopped midway),
 * always with the same event id, so acting once per id makes handling safe.
 * The id is the envelope's `id`, which the signature covers; the
 * `X-Service-Delivery-Id` header is not signed, so it cannot be the key.
 * In memory and bounded here; a real receiver records the id in its database
 * (a unique constraint) in the same transaction as the work it triggers.
 */
export class SeenEvents {
  readonly #ids = new Set<string>();
  constructor(readonly capacity = 10_000) {}

  /** True the first time an id is claimed, false for a repeat. */
  claim(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    // A Set iterates in insertion order: the first entry is the oldest.
    if (this.#ids.size > this.capacity) this.#ids.delete(this.#ids.values().next().value!);
    return true;
  }

  /** Gives an id back when its handling failed, so a resend of it is handled. */
  release(id: string): void {
    this.#ids.delete(id);
  }
}
