/**
 * What the routing page's confirmation says a rule will do, and the checks a
 * draft rule passes before it is sent: the words a person confirms must match
 * what the service will do with the rule (decision 21).
 */
import { describe, expect, it } from 'vitest';
import { clearEffect, draftErrors, draftToRule, ruleEffect, ruleSummary, sameRule } from '../../dashboard/src/parts/routing-rule';
import { SetRouteInput } from '../../server/contract/operator/gateways';

describe('the effect of a rule, as the confirmation names it', () => {
  it('an ordered list names the primary, then each fallback in order', () => {
    expect(
      ruleEffect('PIX', [
        { gateway: 'gateway_b', weight: null },
        { gateway: 'gateway_a', weight: null },
      ]),
    ).toMatch(/^New Pix payments will go to gateway_b first, then gateway_a\. /);
    expect(ruleEffect('CARD', draftToRule([{ gateway: 'gateway_c', weight: '' }, { gateway: 'gateway_a', weight: '' }, { gateway: 'gateway_b', weight: '' }], false))).toMatch(
      /^New card payments will go to gateway_c first, then gateway_a, then gateway_b\./,
    );
  });

  it('one gateway says there is no fallback', () => {
    expect(ruleEffect('SUBSCRIPTION', [{ gateway: 'gateway_c', weight: null }])).toBe(
      'New subscriptions will go to gateway_c, with no fallback: while gateway_c is unavailable they fail.',
    );
  });

  it('a split names each share, the stickiness of an externalId, the fallback order and a gateway kept as fallback only', () => {
    const text = ruleEffect('PIX', [
      { gateway: 'gateway_a', weight: 80 },
      { gateway: 'gateway_b', weight: 20 },
      { gateway: 'gateway_c', weight: 0 },
    ]);
    expect(text).toContain('New Pix payments will be split by weight: 80% to gateway_a and 20% to gateway_b;');
    expect(text).toContain('the same externalId always goes to the same gateway');
    expect(text).toContain('in the order gateway_a, gateway_b, gateway_c');
    expect(text).toContain('gateway_c takes none directly, only as a fallback.');
    expect(ruleSummary([{ gateway: 'gateway_a', weight: 80 }, { gateway: 'gateway_b', weight: 20 }])).toBe('gateway_a 80% · gateway_b 20%');
  });

  it('clearing a rule says new requests of the method are refused with 409', () => {
    expect(clearEffect('PIX')).toBe('Every new Pix payment will fail with 409 no_routing_rule until a rule is set again. What was already created is not affected.');
    expect(clearEffect('SUBSCRIPTION')).toMatch(/^Every new subscription will fail with 409/);
  });
});

describe('a draft rule', () => {
  it('without a split sends no weights, whatever the fields held', () => {
    expect(draftToRule([{ gateway: 'gateway_a', weight: 70 }], false)).toEqual([{ gateway: 'gateway_a', weight: null }]);
    expect(draftErrors([{ gateway: 'gateway_a', weight: 'x' }], false)).toEqual({});
  });

  it('with a split needs whole percentages adding up to 100, each named where it is wrong', () => {
    expect(draftErrors([{ gateway: 'gateway_a', weight: '' }, { gateway: 'gateway_b', weight: 20 }], true)).toEqual({ 'weight.0': 'Give a weight (a whole number), or turn the split off.' });
    expect(draftErrors([{ gateway: 'gateway_a', weight: 7.5 }, { gateway: 'gateway_b', weight: 20 }], true)).toEqual({ 'weight.0': 'A weight is a whole number.' });
    expect(draftErrors([{ gateway: 'gateway_a', weight: 120 }, { gateway: 'gateway_b', weight: 20 }], true)).toEqual({ 'weight.0': 'A weight is between 0 and 100 (percent).' });
    expect(draftErrors([{ gateway: 'gateway_a', weight: 80 }, { gateway: 'gateway_b', weight: 30 }], true)).toEqual({ rule: 'The weights are percentages and add up to 100; these add up to 110.' });
    expect(draftErrors([{ gateway: 'gateway_a', weight: '80' }, { gateway: 'gateway_b', weight: 20 }], true)).toEqual({});
  });

  it('names a gateway listed twice', () => {
    expect(draftErrors([{ gateway: 'gateway_a', weight: '' }, { gateway: 'gateway_a', weight: '' }], false)).toEqual({ 'gateway.1': 'gateway_a is already in this rule.' });
  });

  it('what the page lets through, the service takes; what it stops, the service refuses too', () => {
    const cases: { draft: Parameters<typeof draftErrors>[0]; split: boolean }[] = [
      { draft: [{ gateway: 'gateway_a', weight: '' }], split: false },
      { draft: [{ gateway: 'gateway_a', weight: 80 }, { gateway: 'gateway_b', weight: 20 }], split: true },
      { draft: [{ gateway: 'gateway_a', weight: 100 }, { gateway: 'gateway_b', weight: 0 }, { gateway: 'gateway_c', weight: 0 }], split: true },
      { draft: [{ gateway: 'gateway_a', weight: 80 }, { gateway: 'gateway_b', weight: 30 }], split: true },
      { draft: [{ gateway: 'gateway_a', weight: 0 }, { gateway: 'gateway_b', weight: 0 }], split: true },
      { draft: [{ gateway: 'gateway_b', weight: '' }, { gateway: 'gateway_b', weight: '' }], split: false },
    ];
    for (const { draft, split } of cases) {
      const accepted = SetRouteInput.safeParse({ environmentId: 'env_1', method: 'PIX', gateways: draftToRule(draft, split) }).success;
      expect(Object.keys(draftErrors(draft, split)).length === 0, JSON.stringify(draft)).toBe(accepted);
    }
  });

  it('compares rules by order and weights', () => {
    const rule = [
      { gateway: 'gateway_a' as const, weight: null },
      { gateway: 'gateway_b' as const, weight: null },
    ];
    expect(sameRule(rule, [...rule])).toBe(true);
    expect(sameRule(rule, [...rule].reverse())).toBe(false);
    expect(sameRule(rule, [{ ...rule[0]!, weight: 50 }, { ...rule[1]!, weight: 50 }])).toBe(false);
  });
});
