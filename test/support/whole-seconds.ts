/**
 * For tests of a gateway clock that stamps events in whole seconds
 * (gateway_a): a round of steps that must happen within one second of the
 * wall clock (a sync, then a change at the gateway), started at the
 * beginning of a fresh second and repeated while a busy machine lets it
 * spill into the next one, which would prove nothing.
 */

/** Resolves once a new second of the wall clock has begun; answers it, in Unix seconds. */
export async function nextWholeSecond(): Promise<number> {
  const second = Math.floor(Date.now() / 1000) + 1;
  while (Date.now() < second * 1000) await new Promise((resolve) => setTimeout(resolve, Math.max(1, second * 1000 - Date.now())));
  return second;
}

/**
 * Runs `round` from the start of a fresh second until the time it answers
 * (the gateway's stamp of its last step, Unix seconds) is that same second,
 * at most `tries` times; `undo` puts things back before another try.
 * Answers whether a round stayed within its second.
 */
export async function withinOneSecond(round: () => Promise<number>, undo: () => Promise<void>, tries = 5): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const second = await nextWholeSecond();
    if ((await round()) === second) return true;
    if (attempt === tries) return false;
    await undo();
  }
}

/** The `created` (Unix seconds) of the last event a gateway_a simulator sent. */
export function lastEventSecond(log: readonly { body: string }[]): number {
  return (JSON.parse(log.at(-1)!.body) as { created: number }).created;
}
