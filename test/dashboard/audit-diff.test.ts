/** The audit page's before/after rows (dashboard/src/parts/audit-diff.ts). */
import { describe, expect, it } from 'vitest';
import { diffRows } from '../../dashboard/src/parts/audit-diff';

describe('diffRows', () => {
  it('lists every field path once, marks what changed, and shows a dash for a side without it', () => {
    const rows = diffRows(
      { method: 'PIX', gateways: [{ gateway: 'gateway_a', weight: null }], credentials: { apiKey: 'set' } },
      { method: 'PIX', gateways: [{ gateway: 'gateway_b', weight: 80 }, { gateway: 'gateway_a', weight: 20 }], credentials: { apiKey: 'changed' } },
    );
    expect(rows).toEqual([
      { path: 'method', before: 'PIX', after: 'PIX', changed: false },
      { path: 'gateways.0.gateway', before: 'gateway_a', after: 'gateway_b', changed: true },
      { path: 'gateways.0.weight', before: 'null', after: '80', changed: true },
      { path: 'gateways.1.gateway', before: '—', after: 'gateway_a', changed: true },
      { path: 'gateways.1.weight', before: '—', after: '20', changed: true },
      { path: 'credentials.apiKey', before: 'set', after: 'changed', changed: true },
    ]);
  });

  it('a created record has only an after, a removed one only a before', () => {
    expect(diffRows(null, { name: 'k' })).toEqual([{ path: 'name', before: '—', after: 'k', changed: true }]);
    expect(diffRows({ name: 'k' }, null)).toEqual([{ path: 'name', before: 'k', after: '—', changed: true }]);
    expect(diffRows(null, null)).toEqual([]);
  });
});
