/** What a change to a gateway account does to live traffic, in the words its confirmation uses. */
import type { Confirmation, ConfirmTarget } from '../ui/ConfirmButton';
import { shares } from './routing-rule';

const METHOD_NAMES: Record<string, string> = { PIX: 'Pix', CARD: 'card', SUBSCRIPTION: 'subscription' };

/** The methods whose routing rule names this gateway (first or as a fallback). */
export function methodsRoutedTo(rules: readonly MethodRule[], gateway: string): string[] {
  const order = Object.keys(METHOD_NAMES);
  return [...rules]
    .sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method))
    .filter((rule) => rule.gateways.some((entry) => entry.gateway === gateway))
    .map((rule) => METHOD_NAMES[rule.method] ?? rule.method);
}

const list = (names: string[]) => (names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

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

export function gatewaySwitchConfirmation(gateway: string, enable: boolean, rules: readonly MethodRule[], enabled: readonly string[], target: ConfirmTarget | undefined): Confirmation {
  if (enable) {
    const methods = methodsRoutedTo(rules, gateway);
    return {
      title: `Enable ${gateway}?`,
      message: methods.length
        ? `New ${list(methods)} payments routed to ${gateway} are sent to it again, from now on.`
        : `No routing rule sends payments to ${gateway} yet; it takes new payments once a rule does.`,
      confirmLabel: `Enable ${gateway}`,
      target,
    };
  }
  const effects = disableEffects(rules, enabled, gateway);
  return {
    title: `Disable ${gateway}?`,
    message: disableMessage(gateway, effects),
    confirmLabel: `Disable ${gateway}`,
    cancelLabel: 'Keep it enabled',
    danger: effects.fail.length > 0 || effects.move.length > 0,
    target,
  };
}

export function gatewayConfigureConfirmation(gateway: string, replacing: boolean, target: ConfirmTarget | undefined): Confirmation {
  return {
    title: replacing ? `Replace ${gateway}'s configuration?` : `Configure ${gateway}?`,
    message: replacing
      ? `New payments routed to ${gateway} use this base URL and the credentials you typed at once (fields left blank keep their stored values), and the credentials replaced are discarded: if they are wrong, those payments fail until it is fixed.`
      : `${gateway} can take new payments as soon as a routing rule sends them to it.`,
    confirmLabel: replacing ? 'Replace configuration' : 'Save',
    danger: replacing,
    target,
  };
}

/** Turning a webhook endpoint off or on: what its receiver gets from then on. */
export function endpointSwitchConfirmation(url: string, enable: boolean, target: ConfirmTarget | undefined): Confirmation {
  return enable
    ? {
        title: 'Enable this endpoint?',
        message: `Events from now on are delivered to ${url} again. Events that happened while it was off were not queued for it: read them from GET /v1/events.`,
        confirmLabel: 'Enable endpoint',
        target,
      }
    : {
        title: 'Disable this endpoint?',
        message: `Events from now on are not delivered to ${url}: your receiver stops hearing about payments (payment.paid included) until it is enabled again, and they are not queued for later; they stay readable from GET /v1/events.`,
        confirmLabel: 'Disable endpoint',
        cancelLabel: 'Keep it enabled',
        danger: true,
        target,
      };
}
