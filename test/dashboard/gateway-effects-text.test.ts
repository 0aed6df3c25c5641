/**
 * What the confirmation of disabling a gateway says: per method, whether new
 * payments fail (no other enabled gateway in the rule), move to the next
 * enabled gateway of the rule, or are not affected (the gateway is only a
 * fallback), as server/domain/routing.ts plans a create.
 */
import { describe, expect, it } from 'vitest';
import { disableEffects, disableMessage, type MethodRule } from '../../dashboard/src/parts/gateway-disable-text';

const only = (method: string, gateway: string): MethodRule => ({ method, gateways: [{ gateway, weight: null }] });
const ordered = (method: string, ...gateways: string[]): MethodRule => ({ method, gateways: gateways.map((gateway) => ({ gateway, weight: null })) });

describe('disabling a gateway, as its confirmation says it', () => {
  it('methods with no other gateway in their rule fail', () => {
    const effects = disableEffects([only('CARD', 'gateway_a'), only('PIX', 'gateway_a')], ['gateway_a', 'gateway_b'], 'gateway_a');
    expect(effects).toEqual({ fail: ['Pix', 'card'], move: [], fallbackOnly: [] });
    expect(disableMessage('gateway_a', effects)).toBe(
      'New Pix and card payments will fail: no other enabled gateway is in their routing rule. That lasts until gateway_a is enabled again or a rule sends them to another gateway. Payments already made at gateway_a keep being followed.',
    );
  });

  it('a method whose rule has another enabled gateway moves to it, named', () => {
    const effects = disableEffects([ordered('PIX', 'gateway_a', 'gateway_b'), only('CARD', 'gateway_a')], ['gateway_a', 'gateway_b'], 'gateway_a');
    expect(effects).toEqual({ fail: ['card'], move: [{ method: 'Pix', to: 'gateway_b', share: null }], fallbackOnly: [] });
    const message = disableMessage('gateway_a', effects);
    expect(message).toContain('New card payments will fail: no other enabled gateway is in their routing rule.');
    expect(message).toContain('New Pix payments go to gateway_b instead of gateway_a, the next enabled gateway of their rule.');
    expect(message).not.toMatch(/Pix (and card )?payments will fail/);
  });

  it('a fallback that is disabled or not configured is passed over: the next enabled one takes them, or they fail', () => {
    expect(disableEffects([ordered('PIX', 'gateway_a', 'gateway_b', 'gateway_c')], ['gateway_a', 'gateway_c'], 'gateway_a').move).toEqual([{ method: 'Pix', to: 'gateway_c', share: null }]);
    expect(disableEffects([ordered('PIX', 'gateway_a', 'gateway_b')], ['gateway_a'], 'gateway_a').fail).toEqual(['Pix']);
  });

  it('a gateway that is only a fallback behind an enabled one changes nothing now', () => {
    const effects = disableEffects([ordered('CARD', 'gateway_b', 'gateway_a')], ['gateway_a', 'gateway_b'], 'gateway_a');
    expect(effects).toEqual({ fail: [], move: [], fallbackOnly: ['card'] });
    expect(disableMessage('gateway_a', effects)).toBe(
      'New card payments are not affected: gateway_a is only their fallback, and stops being one. Payments already made at gateway_a keep being followed.',
    );
    // Behind a disabled first gateway it is the one taking them.
    expect(disableEffects([ordered('CARD', 'gateway_b', 'gateway_a')], ['gateway_a'], 'gateway_a').fail).toEqual(['card']);
  });

  it('a weighted rule: its share moves to the next enabled gateway in rule order; weight 0 is a fallback only', () => {
    const rule: MethodRule = { method: 'PIX', gateways: [{ gateway: 'gateway_a', weight: 80 }, { gateway: 'gateway_b', weight: 20 }, { gateway: 'gateway_c', weight: 0 }] };
    const effects = disableEffects([rule], ['gateway_a', 'gateway_b', 'gateway_c'], 'gateway_a');
    expect(effects.move).toEqual([{ method: 'Pix', to: 'gateway_b', share: 80 }]);
    expect(disableMessage('gateway_a', effects)).toContain("80% of new Pix payments (gateway_a's share) go to gateway_b instead of gateway_a");
    expect(disableEffects([rule], ['gateway_a', 'gateway_b', 'gateway_c'], 'gateway_c')).toEqual({ fail: [], move: [], fallbackOnly: ['Pix'] });
  });

  it('no rule naming it: nothing is affected', () => {
    const effects = disableEffects([only('PIX', 'gateway_a')], ['gateway_a', 'gateway_c'], 'gateway_c');
    expect(effects).toEqual({ fail: [], move: [], fallbackOnly: [] });
    expect(disableMessage('gateway_c', effects)).toMatch(/^No routing rule sends payments to gateway_c, so no new payment is affected/);
  });
});
