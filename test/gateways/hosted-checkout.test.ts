/**
 * The gateway-hosted card checkout of each simulator, driven as a browser
 * would: the page shows a real checkout, the form posts back to it, and a
 * create that carried a return address gets the customer sent back there
 * (303) with that gateway's own outcome parameters.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_NAMES, type GatewayName } from '../../server/contract/enums';
import { CUSTOMER, expectApiError, startGateway, subscriptionInput, type GatewayUnderTest } from '../support/gateway-harness';

const SHOP = 'https://shop.example/orders/42/back?lang=pt';

/** The gateway's return parameters for a payment/subscription outcome, as each PROTOCOL.md documents them. */
const RETURN_PARAMS: Record<GatewayName, (kind: 'payment' | 'subscription', ref: string, outcome: 'paid' | 'declined' | 'abandoned') => Record<string, string>> = {
  gateway_a: (kind, ref, outcome) => ({
    [kind]: ref,
    redirect_status: { paid: 'succeeded', declined: 'failed', abandoned: 'canceled' }[outcome],
  }),
  gateway_b: (kind, ref, outcome) => ({
    [kind === 'payment' ? 'cobranca' : 'assinatura']: ref,
    situacao: { paid: 'PAGO', declined: 'RECUSADO', abandoned: 'DESISTENCIA' }[outcome],
  }),
  gateway_c: (_kind, ref, outcome) => ({
    checkout_link_id: ref,
    result: { paid: 'success', declined: 'declined', abandoned: 'abandoned' }[outcome],
  }),
};
const TITLES: Record<GatewayName, string> = { gateway_a: 'Gateway A', gateway_b: 'Gateway B Cobranças', gateway_c: 'Gateway C Checkout' };

async function get(url: string) {
  const response = await request(url);
  return { status: response.statusCode, type: String(response.headers['content-type']), html: await response.body.text() };
}

async function post(url: string, form: Record<string, string>) {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.statusCode, location: response.headers.location as string | undefined, html: await response.body.text() };
}

const CARD = { number: '5555 5555 5555 4444', name: 'ANA SOUZA', expiry: '09/31', cvc: '321' };

/** The shop address the customer lands on, with the gateway's parameters on top of the shop's own. */
function expectReturn(location: string | undefined, expected: Record<string, string>): URL {
  expect(location).toBeDefined();
  const url = new URL(location!);
  expect(`${url.origin}${url.pathname}`).toBe('https://shop.example/orders/42/back');
  expect(url.searchParams.get('lang')).toBe('pt');
  for (const [key, value] of Object.entries(expected)) expect(url.searchParams.get(key), key).toBe(value);
  return url;
}

describe.each(GATEWAY_NAMES)('%s hosted checkout', (name) => {
  let gw: GatewayUnderTest;
  let seq = 0;
  const key = () => `hosted-${name}-${++seq}`;
  const cardPayment = (extra: Record<string, unknown> = {}) =>
    gw.adapter.createPayment({ idempotencyKey: key(), amount: 15_000, method: 'card', installments: 4, customer: CUSTOMER, description: 'Tênis de corrida', ...extra });

  beforeAll(async () => {
    gw = await startGateway(name);
  });
  afterAll(async () => {
    await gw.close();
  });

  it('looks like a checkout: amount, installments, a prefilled test card, pay and decline, the gateway, nothing external', async () => {
    const payment = await cardPayment({ returnUrl: SHOP });
    const page = await get(payment.checkoutUrl!);
    expect(page.status).toBe(200);
    expect(page.type).toContain('text/html');
    expect(page.html).toContain(`<title>Checkout · ${TITLES[name]}</title>`);
    expect(page.html).toContain('R$ 150,00');
    expect(page.html).toContain('in 4 installments: 4× R$ 37,50');
    expect(page.html).toMatch(/name="number"[^>]*value="4242 4242 4242 4242"/);
    expect(page.html).toMatch(/name="name"[^>]*value="Ana Souza"/);
    expect(page.html).toContain('<button class="pay" name="action" value="pay">Pay R$ 150,00</button>');
    expect(page.html).toContain('value="decline"');
    if (name !== 'gateway_a') expect(page.html).toContain('Tênis de corrida');
    // Plain HTML and CSS: no scripts, no stylesheets or images from elsewhere.
    expect(page.html).not.toMatch(/<script|<link|<img|src=|@import|url\(/i);
    // Abandoning offers the way back to the shop.
    const back = /<a class="back" href="([^"]+)"/.exec(page.html)?.[1]?.replaceAll('&amp;', '&');
    expectReturn(back, RETURN_PARAMS[name]('payment', payment.gatewayRef, 'abandoned'));
  });

  it('paying sends the customer back with a 303 and the card entered; the payment is paid', async () => {
    const payment = await cardPayment({ returnUrl: SHOP });
    const paid = await post(payment.checkoutUrl!, { action: 'pay', ...CARD });
    expect(paid.status).toBe(303);
    expectReturn(paid.location, RETURN_PARAMS[name]('payment', payment.gatewayRef, 'paid'));
    expect(await gw.adapter.getPayment(payment.gatewayRef)).toMatchObject({ status: 'paid', card: { brand: 'mastercard', last4: '4444' } });

    // Paid: the page takes no card any more.
    expect((await get(payment.checkoutUrl!)).status).toBe(410);
    const again = await post(payment.checkoutUrl!, { action: 'pay', ...CARD });
    expect(again.status).toBe(410);
    expect(again.location).toBeUndefined();
  });

  it('declining (the button or the declined test card) sends the customer back declined; the payment failed', async () => {
    const byButton = await cardPayment({ returnUrl: SHOP });
    const declined = await post(byButton.checkoutUrl!, { action: 'decline' });
    expect(declined.status).toBe(303);
    expectReturn(declined.location, RETURN_PARAMS[name]('payment', byButton.gatewayRef, 'declined'));
    expect((await gw.adapter.getPayment(byButton.gatewayRef)).status).toBe('failed');

    const byCard = await cardPayment({ returnUrl: SHOP });
    const refused = await post(byCard.checkoutUrl!, { action: 'pay', ...CARD, number: '4000 0000 0000 0002' });
    expectReturn(refused.location, RETURN_PARAMS[name]('payment', byCard.gatewayRef, 'declined'));
    expect((await gw.adapter.getPayment(byCard.gatewayRef)).status).toBe('failed');
  });

  it('without a return address the page itself shows the result, as HTML', async () => {
    const payment = await cardPayment();
    const page = await get(payment.checkoutUrl!);
    expect(page.html).not.toContain('class="back"');
    const paid = await post(payment.checkoutUrl!, { action: 'pay', ...CARD });
    expect(paid.status).toBe(200);
    expect(paid.location).toBeUndefined();
    expect(paid.html).toContain('Payment approved');
    expect(paid.html).not.toContain('"ok"');

    const other = await cardPayment();
    const declined = await post(other.checkoutUrl!, { action: 'decline' });
    expect(declined.status).toBe(402);
    expect(declined.html).toContain('Card declined');
  });

  it('an invalid card is shown again with a message and changes nothing', async () => {
    const payment = await cardPayment({ returnUrl: SHOP });
    const refused = await post(payment.checkoutUrl!, { action: 'pay', ...CARD, number: '4242 4242 4242 4241' });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('The card number is not valid.');
    expect(refused.html).toContain('value="4242 4242 4242 4241"');
    expect((await gw.adapter.getPayment(payment.gatewayRef)).status).toBe('pending');
  });

  it('a subscription checkout shows the plan and, once the card is registered, sends the customer back', async () => {
    const created = await gw.adapter.createSubscription({ ...subscriptionInput(name, key()), returnUrl: SHOP });
    const page = await get(created.checkoutUrl!);
    expect(page.status).toBe(200);
    expect(page.html).toContain('R$ 29,90');
    expect(page.html).toContain('/ month');

    // A declined card leaves the checkout open for another card.
    const declined = await post(created.checkoutUrl!, { action: 'decline' });
    expectReturn(declined.location, RETURN_PARAMS[name]('subscription', created.gatewayRef, 'declined'));
    expect((await get(created.checkoutUrl!)).status).toBe(200);

    const done = await post(created.checkoutUrl!, { action: 'pay', ...CARD });
    expect(done.status).toBe(303);
    const back = expectReturn(done.location, RETURN_PARAMS[name]('subscription', created.gatewayRef, 'paid'));
    const subscription = await gw.adapter.getSubscription(created.gatewayRef);
    expect(subscription.status).toBe('active');
    if (name === 'gateway_c') {
      expect(back.searchParams.get('subscription_id')).toBe(subscription.gatewayRef);
      expect(subscription.gatewayRef).toMatch(/^sub_/);
    }
    // Registered: the page takes no second card.
    expect((await post(created.checkoutUrl!, { action: 'pay', ...CARD })).status).toBe(410);
  });

  it('a return address must be an absolute http(s) URL: otherwise invalid_input on returnUrl', async () => {
    for (const returnUrl of ['/orders/42', 'javascript:alert(1)', 'ftp://shop.example/x']) {
      const error = await expectApiError(cardPayment({ returnUrl }), 'invalid_input');
      expect(error.extra.issues).toEqual([{ path: ['returnUrl'], message: expect.any(String) }]);
    }
    const error = await expectApiError(gw.adapter.createSubscription({ ...subscriptionInput(name, key()), returnUrl: 'nope' }), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: ['returnUrl'], message: expect.any(String) }]);
  });

  it('an unknown checkout is a 404 page', async () => {
    const payment = await cardPayment();
    const unknown = payment.checkoutUrl!.replace(payment.gatewayRef, 'nope');
    const page = await get(unknown);
    expect(page.status).toBe(404);
    expect(page.type).toContain('text/html');
  });
});
