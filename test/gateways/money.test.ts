import { describe, expect, it } from 'vitest';
import { centsToReais, reaisToCents } from '../../server/gateways/gateway_b/money';

describe('gateway_b decimal reais', () => {
  it.each([
    [0, '0.00'],
    [1, '0.01'],
    [7, '0.07'],
    [10, '0.10'],
    [29, '0.29'],
    [1_005, '10.05'],
    [123_456_789_01, '123456789.01'],
    [Number.MAX_SAFE_INTEGER, '90071992547409.91'],
  ])('%i cents ⇄ "%s"', (cents, reais) => {
    expect(centsToReais(cents)).toBe(reais);
    if (reais.split('.')[0]!.length <= 13) expect(reaisToCents(reais)).toBe(cents);
  });

  it('never goes through floats: 0.29 and 1.15 stay exact', () => {
    // 0.29 * 100 and 1.15 * 100 are 28.999… and 114.999… in floating point.
    expect(reaisToCents('0.29')).toBe(29);
    expect(reaisToCents('1.15')).toBe(115);
  });

  it.each(['10', '10.5', '10.555', '-1.00', '1,00', ' 1.00', '1e2.00', ''])('refuses "%s"', (text) => {
    expect(reaisToCents(text)).toBeNull();
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])('refuses %d cents', (cents) => {
    expect(() => centsToReais(cents)).toThrow(RangeError);
  });
});
