/**
 * What a routing rule says (decision 21): its gateways in fallback order,
 * and where a weighted rule sends one create, stable for every retry of its
 * externalId.
 */
import { createHash } from 'node:crypto';
import type { RoutingMethod } from '../../contract/enums';
import type { RoutingRule } from '../../db/entities';
import type { RuleGateway } from './trace';

/** A rule's gateways; a row written before lists existed names its one gateway. */
export const ruleGateways = (rule: Pick<RoutingRule, 'gateway' | 'gateways'>): RuleGateway[] =>
  rule.gateways && rule.gateways.length > 0 ? rule.gateways.map(({ gateway, weight }) => ({ gateway, weight: weight ?? null })) : [{ gateway: rule.gateway, weight: null }];

/**
 * Where a weighted rule sends this externalId: a hash of the environment,
 * method and externalId into 0-99, laid over the weights in rule order, so
 * the split follows the weights and every retry of an externalId picks the
 * same gateway. The others follow in rule order (the fallbacks). Without
 * weights, or without an externalId (the dry run), the rule's order.
 */
export function tryOrder(rule: RuleGateway[], environmentId: string, method: RoutingMethod, externalId?: string): { order: RuleGateway[]; reason: string } {
  const weighted = rule.some((g) => g.weight !== null);
  if (!weighted) return { order: rule, reason: rule.length > 1 ? `rule order: ${rule.map((g) => g.gateway).join(' then ')}` : `the rule names ${rule[0]!.gateway}` };
  const split = rule.map((g) => `${g.gateway} ${g.weight ?? 0}%`).join(', ');
  if (externalId === undefined) return { order: rule, reason: `weighted (${split}): each externalId goes where its hash falls; pass an externalId to see where one goes` };
  const bucket = splitBucket(environmentId, method, externalId);
  let upTo = 0;
  const pick = rule.find((g) => (upTo += g.weight ?? 0) > bucket) ?? rule.find((g) => (g.weight ?? 0) > 0) ?? rule[0]!;
  return { order: [pick, ...rule.filter((g) => g !== pick)], reason: `weighted (${split}): this externalId falls at ${bucket} of 100, on ${pick.gateway}` };
}

/** 0-99, stable for one (environment, method, externalId). */
export function splitBucket(environmentId: string, method: RoutingMethod, externalId: string): number {
  const digest = createHash('sha256').update(`${environmentId}\u0000${method}\u0000${externalId}`).digest();
  return Math.floor((digest.readUInt32BE(0) / 0x1_0000_0000) * 100);
}
