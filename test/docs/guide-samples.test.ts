/** The rules the guides' test reads samples and compares answers by (guide-samples.ts): a drift must be caught. */
import { describe, expect, it } from 'vitest';
import { callsService, mismatches, parseDocumented, samplesOf } from './guide-samples';

describe('documented answers', () => {
  const documented = parseDocumented({ lang: 'http', text: 'HTTP/1.1 201 Created\n\n{ "id": "pay_…", "status": "pending", "pix": { "qrCodeText": "…" }, "createdAt": "2026-01-01T00:00:00.000Z" }' });

  it('reads the status and the body of an http block', () => {
    expect(documented.status).toBe(201);
    expect(documented.body).toMatchObject({ status: 'pending' });
  });

  it('accepts an answer with the keys and values shown, and more', () => {
    expect(mismatches(documented.body, { id: 'pay_abc', status: 'pending', pix: { qrCodeText: '000201…' }, createdAt: '2026-11-27T16:00:00Z', amount: 1 })).toEqual([]);
  });

  it('names a missing key, a changed value, a wrong id prefix and a changed shape', () => {
    expect(mismatches(documented.body, { id: 'ref_abc', status: 'paid', createdAt: 'yesterday' })).toEqual([
      '$.id: "ref_abc" does not look like "pay_…"',
      '$.status: the guide shows "pending", the service answered "paid"',
      '$.pix: missing from the answer',
      '$.createdAt: the guide shows "2026-01-01T00:00:00.000Z", the service answered "yesterday"',
    ]);
    expect(mismatches({ data: [{ id: 'evt_…' }] }, { data: [] })).toEqual(['$.data[0]: missing']);
    expect(mismatches({ path: ['amount'] }, { path: 'amount' })).toEqual(['$.path: the guide shows a list, the service answered "amount"']);
  });
});

describe('samples of a guide', () => {
  const markdown = [
    '# A guide',
    '',
    '```sh',
    'curl -sS "$PAYMENTS_URL/v1/health"',
    '```',
    '',
    '```http',
    'HTTP/1.1 200 OK',
    '```',
    '',
    '```sh no-run',
    'npm start',
    '```',
    '',
    '```sh',
    'npm run build',
    '```',
    '',
    '```ts',
    "console.log('{}');",
    '```',
  ].join('\n');
  const { samples, problems } = samplesOf('99-a-guide.md', markdown);

  it('finds curl, no-run and ts samples with their lines and documented answers', () => {
    expect(samples.map((s) => [s.kind, s.line, s.noRun, s.output?.lang])).toEqual([
      ['sh', 3, false, 'http'],
      ['sh', 11, true, undefined],
      ['sh', 15, false, undefined],
      ['ts', 19, false, undefined],
    ]);
  });

  it('runs a shell block that calls curl or the merchant CLI, nothing else', () => {
    expect([callsService('curl -sS "$PAYMENTS_URL"'), callsService('npx payments sim pay "$PAYMENT_ID"'), callsService('npm start'), callsService('npx payments-admin route list')]).toEqual([true, true, false, false]);
  });

  it('refuses an sh block that neither calls curl nor says no-run', () => {
    expect(problems).toEqual(['99-a-guide.md:15: an sh block without curl must say `sh no-run` (or call curl)']);
  });
});
