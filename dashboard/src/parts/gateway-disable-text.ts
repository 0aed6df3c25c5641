/**
 * What disabling a gateway does to new payments, per method, in the words its
 * confirmation uses (parts/gateway-effects.ts). Pure: no React, so the text
 * is unit-tested on its own (test/dashboard/gateway-effects-text.test.ts).
 */
import { shares } from './routing-rule';

export const METHOD_NAMES: Record<string, string> = { PIX: 'Pix', CARD: 'card', SUBSCRIPTION: 'subscription' };

/** "a", "a and b", "a, b and c". */
export const list = (names: string[]) => (names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** A method's routing rule as `routing.list` reads it: the gateways in order, with their weights. */
export interface MethodRule {
  method: string;
  gateways: readonly { gateway: string; weight: number | null }[];
}

/** What disabling a gateway does to each method whose rule names it. */
export interface DisableEffects {
  /** No other enabled gateway in the rule: new payments of these methods fail. */
  fail: string[];
  /** New payments this gateway takes now go to the next enabled gateway of the rule instead. */
  move: { method: string; to: string; share: number | null }[];
  /** The gateway is only a fallback here (an enabled gateway before it, or weight 0): nothing changes now. */
  fallbackOnly: string[];
}

/**
 * Per method, what disabling `gateway` does, the way server/domain/routing.ts
 * plans a create: the gateways of the rule are tried in order (a weighted rule
 * first the one an externalId falls on, then the others in rule order), a
 * disabled or unconfigured one passed over. So the requests the gateway takes
 * now go to the first other enabled gateway of the rule, or fail without one.
 * `enabled` lists the gateways configured and enabled in the environment.
 */
export function disableEffects(rules: readonly MethodRule[], enabled: readonly string[], gateway: string): DisableEffects {
  const order = Object.keys(METHOD_NAMES);
  const usable = (name: string) => name === gateway || enabled.includes(name);
  const effects: DisableEffects = { fail: [], move: [], fallbackOnly: [] };
  for (const rule of [...rules].sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method))) {
    const entry = rule.gateways.find((g) => g.gateway === gateway);
    if (!entry) continue;
    const name = METHOD_NAMES[rule.method] ?? rule.method;
    const weighted = rule.gateways.some((g) => g.weight !== null);
    const firstUsable = rule.gateways.find((g) => usable(g.gateway))?.gateway;
    // Weighted: its share, and what a disabled weighted gateway passes on to it; in order: all of it while it is the first usable.
    const takes = weighted ? (entry.weight ?? 0) > 0 || firstUsable === gateway : firstUsable === gateway;
    if (!takes) {
      effects.fallbackOnly.push(name);
      continue;
    }
    const to = rule.gateways.find((g) => g.gateway !== gateway && enabled.includes(g.gateway))?.gateway;
    if (to) effects.move.push({ method: name, to, share: weighted && (entry.weight ?? 0) > 0 ? (shares([...rule.gateways])?.[rule.gateways.indexOf(entry)] ?? null) : null });
    else effects.fail.push(name);
  }
  return effects;
}

/** What the confirmation of disabling a gateway says, one sentence per kind of effect. */
export function disableMessage(gateway: string, effects: DisableEffects): string {
  const sentences: string[] = [];
  if (effects.fail.length) {
    sentences.push(
      `New ${list(effects.fail)} payments will fail: no other enabled gateway is in their routing rule. That lasts until ${gateway} is enabled again or a rule sends them to another gateway.`,
    );
  }
  const byTarget = new Map<string, DisableEffects['move']>();
  for (const move of effects.move) byTarget.set(move.to, [...(byTarget.get(move.to) ?? []), move]);
  for (const [to, moves] of byTarget) {
    const what = list(moves.map((m) => (m.share !== null ? `${m.share}% of new ${m.method} payments (${gateway}'s share)` : `new ${m.method} payments`)));
    sentences.push(`${what[0]!.toUpperCase()}${what.slice(1)} go to ${to} instead of ${gateway}, the next enabled gateway of their rule.`);
  }
  if (effects.fallbackOnly.length) sentences.push(`New ${list(effects.fallbackOnly)} payments are not affected: ${gateway} is only their fallback, and stops being one.`);
  if (!sentences.length) return `No routing rule sends payments to ${gateway}, so no new payment is affected; a rule that names it later passes it over while it is disabled.`;
  return `${sentences.join(' ')} Payments already made at ${gateway} keep being followed.`;
}
