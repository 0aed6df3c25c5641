/**
 * Seeded requests over every /v1 route of the document, valid and not: a
 * valid body with one field replaced, removed or joined by an unknown one,
 * hostile ids, lookups and event queries, with the API key, none or a wrong
 * one. The conformance test checks every answer against the document; the
 * Prism test sends them through Prism's validating proxy.
 */
import fc from 'fast-check';

/** A customer every gateway takes (gateway_c needs the phone). */
export const CUSTOMER = { name: 'Maria Silva', email: 'maria@example.com', document: '12345678909', phone: '11987654321' };


export interface FuzzRequest {
  method: string;
  template: string;
  path: string;
  body?: string;
  key: 'main' | 'none' | 'garbage';
}

const nasty = fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\u001b[31m', '\r\n', '\ud800', 'x'.repeat(256), 'é'.repeat(300), '%', '../x', '"', '{"a":1}', 'null', '__proto__', 'pay_', 'sub_');
const text = fc.oneof(nasty, fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 40 }));
const encode = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80'; // a lone surrogate: the bytes of invalid UTF-8
  }
};
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(fc.oneof(fc.constantFrom('amount', 'method', 'externalId', 'customer', 'atPeriodEnd', 'card', 'x'), fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 4 }),
})).value;

/** A valid body with one field replaced, removed or joined by an unknown one: most answers are the validation's. */
function mutatedBody(base: () => Record<string, unknown>, paths: string[]): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...paths), fc.constantFrom('keep', 'replace', 'remove', 'unknown'), json).map(([path, action, value]) => {
    const body = base();
    const segments = path.split('.');
    let target = body;
    for (const segment of segments.slice(0, -1)) target = (target[segment] ??= {}) as Record<string, unknown>;
    const last = segments.at(-1)!;
    if (action === 'replace') target[last] = value;
    else if (action === 'remove') delete target[last];
    else if (action === 'unknown') target[`${last}_unknown`] = value;
    return JSON.stringify(body);
  });
}

const rawBody = (base: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 6, arbitrary: base },
    { weight: 2, arbitrary: json.map((value) => JSON.stringify(value) ?? '') },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"amount":', '[1,2', 'nul', '', '{}', '"\\ud800"', '{"a":1}{}') },
  );

/**
 * A path segment for `{id}`: an empty one, `.` or `..` makes another URL
 * (`/v1/payments//cancel` is no route; `/v1/payments/` is the lookup), so
 * it is not a request to this route and is not sent as one.
 */
const segment = (known: string[], shaped: string[]) =>
  fc.oneof(fc.constantFrom(...known), fc.constantFrom(...shaped), text.map(encode)).filter((id) => id !== '' && id !== '.' && id !== '..');

export function fuzzedRequests(ids: { payments: string[]; subscriptions: string[]; refunds: string[] }, externalIds: string[], externalId: (tag: string) => string): fc.Arbitrary<FuzzRequest> {
  const paymentId = segment(ids.payments, ['pay_000000000000000000000000', 'pay_x', '%00', '%ZZ', 'x'.repeat(300)]);
  const subscriptionId = segment(ids.subscriptions, ['sub_000000000000000000000000', '%00', '%ZZ']);
  const lookup = fc.oneof(fc.constantFrom(...externalIds).map(encode), text.map(encode), fc.constant('a&externalId=b'));
  const payment = mutatedBody(
    () => ({ amount: 1990, method: 'pix', externalId: externalId('fuzz'), customer: { ...CUSTOMER } }),
    ['amount', 'method', 'currency', 'externalId', 'customer.name', 'customer.email', 'customer.document', 'customer.phone', 'metadata', 'card', 'card.installments', 'returnUrl'],
  );
  const subscription = mutatedBody(
    () => ({ amount: 2990, interval: 'monthly', externalId: externalId('fuzz'), customer: { ...CUSTOMER } }),
    ['amount', 'interval', 'trialDays', 'externalId', 'customer.email', 'customer.document', 'metadata', 'card.installments', 'gateway.gateway_c.planId', 'returnUrl'],
  );
  const noBody = rawBody(fc.constantFrom('', '{}', '{"x":1}'));
  const refundId = segment(ids.refunds, ['ref_000000000000000000000000', 'ref_x', '%00']);
  // Small amounts: most refunds the fuzz makes leave money for the next.
  const refundRequest = mutatedBody(() => ({ externalId: externalId('fuzz-refund'), amount: 1, reason: 'fuzz' }), ['externalId', 'amount', 'reason']);
  const requests: fc.Arbitrary<Omit<FuzzRequest, 'key'>>[] = [
    fc.constant({ method: 'GET', template: '/v1/health', path: '/v1/health' }),
    fc.constant({ method: 'GET', template: '/v1/auth/test', path: '/v1/auth/test' }),
    rawBody(payment).map((body) => ({ method: 'POST', template: '/v1/payments', path: '/v1/payments', body })),
    lookup.map((value) => ({ method: 'GET', template: '/v1/payments', path: `/v1/payments?externalId=${value}` })),
    paymentId.map((id) => ({ method: 'GET', template: '/v1/payments/{id}', path: `/v1/payments/${id}` })),
    fc.tuple(paymentId, fc.constantFrom('cancel', 'sync'), noBody).map(([id, action, body]) => ({ method: 'POST', template: `/v1/payments/{id}/${action}`, path: `/v1/payments/${id}/${action}`, body })),
    rawBody(subscription).map((body) => ({ method: 'POST', template: '/v1/subscriptions', path: '/v1/subscriptions', body })),
    lookup.map((value) => ({ method: 'GET', template: '/v1/subscriptions', path: `/v1/subscriptions?externalId=${value}` })),
    subscriptionId.map((id) => ({ method: 'GET', template: '/v1/subscriptions/{id}', path: `/v1/subscriptions/${id}` })),
    fc.tuple(subscriptionId, rawBody(fc.constantFrom('{"atPeriodEnd":false}', '{"atPeriodEnd":"true"}', '{"atPeriodEnd":1}', '{}'))).map(([id, body]) => ({ method: 'POST', template: '/v1/subscriptions/{id}/cancel', path: `/v1/subscriptions/${id}/cancel`, body })),
    fc.tuple(subscriptionId, noBody).map(([id, body]) => ({ method: 'POST', template: '/v1/subscriptions/{id}/sync', path: `/v1/subscriptions/${id}/sync`, body })),
    fc.tuple(paymentId, rawBody(refundRequest)).map(([id, body]) => ({ method: 'POST', template: '/v1/payments/{id}/refunds', path: `/v1/payments/${id}/refunds`, body })),
    lookup.map((value) => ({ method: 'GET', template: '/v1/refunds', path: `/v1/refunds?externalId=${value}` })),
    refundId.map((id) => ({ method: 'GET', template: '/v1/refunds/{id}', path: `/v1/refunds/${id}` })),
    fc
      .record({ after: fc.option(fc.oneof(fc.constantFrom('evt_000000000000000000000000'), text.map(encode)), { nil: undefined }), limit: fc.option(fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), text.map(encode)), { nil: undefined }), type: fc.option(fc.oneof(fc.constantFrom('payment.created', 'subscription.created'), text.map(encode)), { nil: undefined }) })
      .map((query) => {
        const search = Object.entries(query).filter(([, value]) => value !== undefined).map(([name, value]) => `${name}=${value}`).join('&');
        return { method: 'GET', template: '/v1/events', path: `/v1/events${search ? `?${search}` : ''}` };
      }),
  ];
  return fc.tuple(fc.oneof(...requests), fc.constantFrom<FuzzRequest['key']>('main', 'main', 'main', 'main', 'main', 'main', 'none', 'garbage')).map(([request, key]) => ({ ...request, key }));
}
