/**
 * The gateway-hosted card checkout page a `checkoutUrl` points at, for the
 * three simulators. It is what a customer of a sandbox shop sees, so it looks
 * like a checkout: the amount and installments (or the plan), a card form
 * with a test card filled in, pay and decline buttons, the gateway's name.
 * Plain server-rendered HTML and CSS, nothing loaded from elsewhere.
 *
 * The form posts back to the page itself; the outcome goes through the same
 * actions as the `/_sim/` control routes (so webhooks go out the same way),
 * then the customer is sent back to the shop's return address with a 303 when
 * the create carried one, each gateway adding its own query parameters.
 */
import type { SubscriptionInterval } from '../../contract/enums';
import type { CardSummary } from '../../gateways/adapter';
import type { GatewaySimulator } from './control';
import { SimControlError, type SimRequest, type SimResponse, type SimRoute } from './server';

/** What the customer did at the checkout, as the shop is told on return. */
export type CheckoutOutcome = 'paid' | 'declined' | 'abandoned';

export interface CheckoutBrand {
  /** Shown as the page's title and header. */
  title: string;
  /** CSS colour of the header and the pay button. */
  accent: string;
}

/** One checkout as the page shows it, read from the simulator's state. */
export interface CheckoutView {
  kind: 'payment' | 'subscription';
  amount: number;
  /** Payments: how many installments were asked for. */
  installments: number;
  /** Subscriptions: the billing interval and trial. */
  interval: SubscriptionInterval | null;
  trialDays: number;
  description: string | null;
  /** The prefilled cardholder name. */
  customerName: string | null;
  /** false once paid, declined, expired or deactivated: the page takes no card. */
  open: boolean;
  /** The gateway's own status word, shown on a closed checkout. */
  rawStatus: string;
  /** Absolute URL from the create, or null: then the page shows the result itself. */
  returnUrl: string | null;
}

export interface HostedCheckoutOptions {
  /** `/checkout/:ref` style; the page answers GET and POST there. */
  pattern: string;
  brand: CheckoutBrand;
  view(ref: string): CheckoutView | null;
  /** The return address with this gateway's own parameters for the outcome. */
  returnTo(returnUrl: string, ref: string, outcome: CheckoutOutcome, subscriptionRef: string | null): string;
  handle(): GatewaySimulator;
}

/** The card the form is filled in with: it approves. */
export const TEST_CARD = { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' } as const;
/** A well-formed card that the sandbox always declines. */
export const DECLINED_TEST_CARD = '4000000000000002';

const html = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
export const formatBrl = (cents: number): string => brl.format(cents / 100).replace(/\u00a0/g, ' ');

/** Exact installment values: the first `amount % n` installments carry the extra cent. */
export function installmentPlan(amount: number, installments: number): string {
  const n = Math.max(1, installments);
  const base = Math.floor(amount / n);
  const extra = amount % n;
  if (extra === 0) return `${n}× ${formatBrl(base)}`;
  return `${extra}× ${formatBrl(base + 1)} + ${n - extra}× ${formatBrl(base)}`;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The brand by its number's prefix, as card networks assign them (Elo and Hipercard first: some of their ranges sit inside Visa's and Mastercard's). */
export function cardBrand(digits: string): string {
  if (/^(4011|4312|4389|4514|4576|5041|5066|5067|5090|6277|6362|6363|6504|6505|6516|6550)/.test(digits)) return 'elo';
  if (/^(606282|3841)/.test(digits)) return 'hipercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return 'mastercard';
  if (/^4/.test(digits)) return 'visa';
  return 'card';
}

interface CardForm {
  number: string;
  name: string;
  expiry: string;
  cvc: string;
}

/** The posted card, or the message to show next to the form. */
function readCard(form: URLSearchParams): { card: CardSummary & { digits: string } } | { error: string; values: CardForm } {
  const values: CardForm = {
    number: form.get('number') ?? '',
    name: form.get('name') ?? '',
    expiry: form.get('expiry') ?? '',
    cvc: form.get('cvc') ?? '',
  };
  const digits = values.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhn(digits)) return { error: 'The card number is not valid.', values };
  if (values.name.trim().length === 0) return { error: 'Enter the name printed on the card.', values };
  const expiry = /^(\d{2})\s*\/\s*(\d{2})$/.exec(values.expiry.trim());
  if (!expiry || Number(expiry[1]) < 1 || Number(expiry[1]) > 12) return { error: 'The expiry date must be MM/YY.', values };
  if (!/^\d{3,4}$/.test(values.cvc.trim())) return { error: 'The security code has 3 or 4 digits.', values };
  return { card: { brand: cardBrand(digits), last4: digits.slice(-4), digits } };
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
header{background:var(--accent);color:#fff;padding:14px 24px;display:flex;align-items:center;gap:12px}
header strong{font-size:18px}
.badge{font-size:12px;border:1px solid rgba(255,255,255,.7);border-radius:999px;padding:1px 8px}
main{max-width:440px;margin:32px auto;padding:0 16px}
.card{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.08),0 8px 24px rgba(0,0,0,.06);padding:24px;margin-bottom:16px}
.summary .amount{font-size:32px;font-weight:700;margin:4px 0}
.muted{color:#6b7280;font-size:14px}
label{display:block;font-size:14px;font-weight:600;margin:14px 0 4px}
input{width:100%;padding:10px 12px;border:1px solid #d1d5db;border-radius:8px;font:inherit}
input:focus{outline:2px solid var(--accent);border-color:transparent}
.row{display:flex;gap:12px}.row>div{flex:1}
.actions{display:flex;flex-direction:column;gap:10px;margin-top:20px}
button{font:inherit;font-weight:600;padding:12px;border-radius:8px;border:0;cursor:pointer}
button.pay{background:var(--accent);color:#fff}
button.decline{background:#fff;color:#b91c1c;border:1px solid #fca5a5}
.error{background:#fef2f2;color:#991b1b;border-radius:8px;padding:10px 12px;margin-top:12px}
.result{text-align:center}
.result .icon{font-size:40px}
a.back{display:inline-block;margin-top:12px;color:var(--accent)}
footer{text-align:center;color:#9ca3af;font-size:12px;margin:24px 0}
`;

function layout(brand: CheckoutBrand, title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${html(title)} · ${html(brand.title)}</title>` +
    `<style>:root{--accent:${html(brand.accent)}}${STYLE}</style></head><body>` +
    `<header><strong>${html(brand.title)}</strong><span class="badge">Sandbox</span></header>` +
    `<main>${body}</main>` +
    `<footer>Simulated checkout: no real card is charged.</footer></body></html>`
  );
}

function summary(view: CheckoutView, ref: string): string {
  const lines: string[] = [];
  if (view.kind === 'payment') {
    lines.push(`<p class="muted">Total to pay</p><p class="amount">${formatBrl(view.amount)}</p>`);
    lines.push(`<p class="installments">${view.installments > 1 ? `in ${view.installments} installments: ${installmentPlan(view.amount, view.installments)}` : 'in 1 installment (à vista)'}</p>`);
  } else {
    const per = view.interval === 'yearly' ? 'year' : 'month';
    lines.push(`<p class="muted">Subscription</p><p class="amount">${formatBrl(view.amount)} <span class="muted">/ ${per}</span></p>`);
    if (view.trialDays > 0) lines.push(`<p>${view.trialDays}-day free trial, then ${formatBrl(view.amount)} every ${per}.</p>`);
    else lines.push(`<p>Charged today and every ${per} until canceled.</p>`);
  }
  if (view.description) lines.push(`<p>${html(view.description)}</p>`);
  lines.push(`<p class="muted">Reference ${html(ref)}</p>`);
  return `<section class="card summary" aria-label="Order summary">${lines.join('')}</section>`;
}

function backLink(options: HostedCheckoutOptions, view: CheckoutView, ref: string): string {
  if (!view.returnUrl) return '';
  return `<a class="back" href="${html(options.returnTo(view.returnUrl, ref, 'abandoned', null))}">← Back to shop</a>`;
}

function formPage(options: HostedCheckoutOptions, ref: string, view: CheckoutView, error: string | null, values?: CardForm): string {
  const v = values ?? { number: TEST_CARD.number, name: view.customerName ?? 'Test Cardholder', expiry: TEST_CARD.expiry, cvc: TEST_CARD.cvc };
  const payLabel = view.kind === 'payment' ? `Pay ${formatBrl(view.amount)}` : view.trialDays > 0 ? 'Start trial' : `Subscribe for ${formatBrl(view.amount)}`;
  const form =
    `<section class="card"><form method="post" action="${html(options.pattern.replace(':ref', encodeURIComponent(ref)))}">` +
    `<h1 style="font-size:18px;margin:0">Card details</h1>` +
    (error ? `<p class="error" role="alert">${html(error)}</p>` : '') +
    `<label for="number">Card number</label><input id="number" name="number" inputmode="numeric" autocomplete="cc-number" value="${html(v.number)}" required>` +
    `<label for="name">Name on card</label><input id="name" name="name" autocomplete="cc-name" value="${html(v.name)}" required>` +
    `<div class="row"><div><label for="expiry">Expiry (MM/YY)</label><input id="expiry" name="expiry" autocomplete="cc-exp" value="${html(v.expiry)}" required></div>` +
    `<div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" value="${html(v.cvc)}" required></div></div>` +
    `<div class="actions"><button class="pay" name="action" value="pay">${html(payLabel)}</button>` +
    `<button class="decline" name="action" value="decline" formnovalidate>Simulate a declined card</button></div>` +
    `<p class="muted">Test cards: ${TEST_CARD.number} is approved; 4000 0000 0000 0002 is declined.</p>` +
    backLink(options, view, ref) +
    `</form></section>`;
  return layout(options.brand, 'Checkout', summary(view, ref) + form);
}

function messagePage(options: HostedCheckoutOptions, title: string, icon: string, text: string, back: string): string {
  return layout(
    options.brand,
    title,
    `<section class="card result" role="status"><div class="icon" aria-hidden="true">${icon}</div><h1>${html(title)}</h1><p>${html(text)}</p>${back}</section>`,
  );
}

const page = (status: number, body: string): SimResponse => ({ status, contentType: 'text/html; charset=utf-8', rawBody: body });

function closedPage(options: HostedCheckoutOptions, ref: string, view: CheckoutView): SimResponse {
  return page(
    410,
    messagePage(options, 'This checkout is closed', 'ⓘ', `It no longer accepts a card (status: ${view.rawStatus}).`, backLink(options, view, ref)),
  );
}

/** GET shows the checkout; POST takes the card (action=pay) or declines it (action=decline). */
export function hostedCheckoutRoutes(options: HostedCheckoutOptions): SimRoute[] {
  const unknown = () => page(404, messagePage(options, 'Unknown checkout', '?', 'This checkout link does not exist.', ''));

  const show = (req: SimRequest): SimResponse => {
    const ref = req.params.ref ?? '';
    const view = options.view(ref);
    if (!view) return unknown();
    if (!view.open) return closedPage(options, ref, view);
    return page(200, formPage(options, ref, view, null));
  };

  const submit = async (req: SimRequest): Promise<SimResponse> => {
    const ref = req.params.ref ?? '';
    const view = options.view(ref);
    if (!view) return unknown();
    if (!view.open) return closedPage(options, ref, view);
    const form = new URLSearchParams(req.rawBody.toString('utf8'));
    const action = form.get('action');
    if (action !== 'pay' && action !== 'decline') return page(400, formPage(options, ref, view, 'Choose pay or decline.'));

    let outcome: Exclude<CheckoutOutcome, 'abandoned'> = 'declined';
    let subscriptionRef: string | null = null;
    try {
      if (action === 'pay') {
        const read = readCard(form);
        if ('error' in read) return page(422, formPage(options, ref, view, read.error, read.values));
        if (read.card.digits === DECLINED_TEST_CARD) {
          if (view.kind === 'payment') await options.handle().declinePayment(ref);
        } else if (view.kind === 'payment') {
          await options.handle().payPayment(ref, { brand: read.card.brand, last4: read.card.last4 });
          outcome = 'paid';
        } else {
          subscriptionRef = (await options.handle().completeCheckout(ref)).subscriptionRef;
          outcome = 'paid';
        }
      } else if (view.kind === 'payment') {
        await options.handle().declinePayment(ref);
      }
      // A subscription checkout whose card is declined stays open: the customer may try another card.
    } catch (error) {
      // Closed between showing the page and posting it (deactivated, expired, paid elsewhere).
      if (error instanceof SimControlError) return closedPage(options, ref, options.view(ref) ?? view);
      throw error;
    }

    if (view.returnUrl) {
      return { status: 303, headers: { location: options.returnTo(view.returnUrl, ref, outcome, subscriptionRef) }, rawBody: '', contentType: 'text/plain' };
    }
    if (outcome === 'paid') {
      const text = view.kind === 'payment' ? `${formatBrl(view.amount)} was paid.` : 'Your card is registered for the subscription.';
      return page(200, messagePage(options, view.kind === 'payment' ? 'Payment approved' : 'Subscription confirmed', '✓', text, ''));
    }
    const retry = view.kind === 'subscription' ? ' You can try another card.' : '';
    return page(402, messagePage(options, 'Card declined', '✕', `The card was declined.${retry}`, ''));
  };

  return [
    { method: 'GET', pattern: options.pattern, public: true, handler: show },
    { method: 'POST', pattern: options.pattern, public: true, handler: submit },
  ];
}

/** Appends query parameters to a shop's return address, keeping its own. */
export function withParams(returnUrl: string, params: Record<string, string | null>): string {
  const url = new URL(returnUrl);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  return url.toString();
}
