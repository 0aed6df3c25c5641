/**
 * What a routing rule means, in words a person confirms: the order new
 * payments try the gateways in, the split when weights are set, and what
 * clearing a rule does. Also the checks a draft rule passes before it is
 * sent (the service checks again). Pure functions: the routing page and its
 * tests share them.
 */
import type { GatewayName, RoutingMethod } from '../../../server/contract/enums';

export interface RuleGateway {
  gateway: GatewayName;
  weight: number | null;
}

/** A rule as read back (a trace keeps gateway names as strings). */
export interface WeightedGateway {
  gateway: string;
  weight: number | null;
}

/** A rule being edited: a weight field may be empty or hold what was typed. */
export interface DraftGateway {
  gateway: GatewayName;
  weight: number | string;
}

export const METHOD_LABEL: Record<RoutingMethod, string> = { PIX: 'Pix', CARD: 'Card', SUBSCRIPTION: 'Subscriptions' };

/** How a sentence names what a method's rule routes. */
export const METHOD_NOUN: Record<RoutingMethod, string> = { PIX: 'Pix payments', CARD: 'card payments', SUBSCRIPTION: 'subscriptions' };

/** Weights are percentages of new requests: each 0-100, together 100 (0: a fallback only). */
export const MAX_WEIGHT = 100;

/** "a", "a and b", "a, b and c". */
export function listed(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** Each gateway's share of new requests, in whole percent (null without weights). */
export function shares(rule: WeightedGateway[]): number[] | null {
  if (!rule.some((g) => g.weight !== null)) return null;
  const total = rule.reduce((sum, g) => sum + (g.weight ?? 0), 0);
  return rule.map((g) => (total > 0 ? Math.round(((g.weight ?? 0) * 100) / total) : 0));
}

/** One line for a rule in a list: "gateway_a → gateway_b" or "gateway_a 80% · gateway_b 20%". */
export function ruleSummary(rule: WeightedGateway[]): string {
  const split = shares(rule);
  if (split) return rule.map((g, i) => `${g.gateway} ${split[i]}%`).join(' · ');
  return rule.map((g) => g.gateway).join(' → ');
}

/** What saving the rule changes, as the confirmation says it. */
export function ruleEffect(method: RoutingMethod, rule: RuleGateway[]): string {
  const noun = `New ${METHOD_NOUN[method]}`;
  const [first] = rule;
  if (!first) return clearEffect(method);
  const split = shares(rule);
  if (split) {
    const taking = rule.flatMap((g, i) => (split[i]! > 0 ? [`${split[i]}% to ${g.gateway}`] : []));
    const standby = rule.filter((_, i) => split[i] === 0).map((g) => g.gateway);
    const fallback =
      rule.length > 1
        ? ` When the gateway a request was given is unavailable, it falls back to the others in the order ${rule.map((g) => g.gateway).join(', ')}.`
        : '';
    const only = standby.length ? ` ${listed(standby)} ${standby.length === 1 ? 'takes' : 'take'} none directly, only as a fallback.` : '';
    return `${noun} will be split by weight: ${listed(taking)}; a request with the same externalId always goes to the same gateway.${fallback}${only}`;
  }
  if (rule.length === 1) return `${noun} will go to ${first.gateway}, with no fallback: while ${first.gateway} is unavailable they fail.`;
  const rest = rule
    .slice(1)
    .map((g) => `then ${g.gateway}`)
    .join(', ');
  return `${noun} will go to ${first.gateway} first, ${rest}. A gateway is passed over only while it is unavailable, before the customer has been shown a Pix code or checkout link.`;
}

/** What clearing a method's rule does. */
export function clearEffect(method: RoutingMethod): string {
  return `Every new ${METHOD_NOUN[method].replace(/s$/, '')} will fail with 409 no_routing_rule until a rule is set again. What was already created is not affected.`;
}

/** The draft as the service takes it; weights only when `split`. */
export function draftToRule(draft: DraftGateway[], split: boolean): RuleGateway[] {
  return draft.map((g) => ({ gateway: g.gateway, weight: split && g.weight !== '' ? Number(g.weight) : null }));
}

/** What is wrong with a draft, per row (`weight.<index>`) and for the whole rule (`rule`); empty when it can be saved. */
export function draftErrors(draft: DraftGateway[], split: boolean): Record<string, string> {
  const errors: Record<string, string> = {};
  const seen = new Set<GatewayName>();
  draft.forEach((g, index) => {
    if (seen.has(g.gateway)) errors[`gateway.${index}`] = `${g.gateway} is already in this rule.`;
    seen.add(g.gateway);
  });
  if (!split) return errors;
  draft.forEach((g, index) => {
    const weight = typeof g.weight === 'number' ? g.weight : g.weight.trim() === '' ? Number.NaN : Number(g.weight);
    if (Number.isNaN(weight)) errors[`weight.${index}`] = 'Give a weight (a whole number), or turn the split off.';
    else if (!Number.isInteger(weight)) errors[`weight.${index}`] = 'A weight is a whole number.';
    else if (weight < 0 || weight > MAX_WEIGHT) errors[`weight.${index}`] = `A weight is between 0 and ${MAX_WEIGHT} (percent).`;
  });
  if (Object.keys(errors).length) return errors;
  const total = draft.reduce((sum, g) => sum + Number(g.weight), 0);
  if (total !== 100) errors.rule = `The weights are percentages and add up to 100; these add up to ${total}.`;
  return errors;
}

/** Whether two rules send requests the same way. */
export function sameRule(a: RuleGateway[], b: RuleGateway[]): boolean {
  return a.length === b.length && a.every((g, i) => g.gateway === b[i]!.gateway && g.weight === b[i]!.weight);
}
