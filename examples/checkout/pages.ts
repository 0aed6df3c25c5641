/** The HTML of the example checkout: plain strings, every dynamic value escaped. */
import type { Payment } from '@service-payments/sdk';
import { formatBRL, PRODUCTS } from './catalogue.js';

const escape = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

const layout = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.6rem 0}textarea{width:100%;height:6rem}</style>
</head>
<body>
${body}
</body>
</html>`;

/** The order form. `orderId` is fixed when the page is made, so submitting it twice pays the same order. */
export function orderForm(orderId: string): string {
  const options = PRODUCTS.map((p) => `<option value="${escape(p.sku)}">${escape(p.name)} (${escape(formatBRL(p.price))})</option>`).join('');
  return layout(
    'Checkout',
    `<h1>Checkout</h1>
<form method="post" action="/orders">
<input type="hidden" name="orderId" value="${escape(orderId)}">
<label>Product <select name="sku">${options}</select></label>
<label>Name <input name="name" required maxlength="255"></label>
<label>E-mail <input name="email" type="email" required></label>
<label>CPF or CNPJ <input name="document" required minlength="8" maxlength="32"></label>
<fieldset><legend>Pay with</legend>
<label><input type="radio" name="method" value="pix" checked> Pix</label>
<label><input type="radio" name="method" value="card"> Card (you are taken to the payment page)</label>
</fieldset>
<button type="submit">Pay</button>
</form>`,
  );
}

/** The Pix page: the copy-and-paste code, and a poll of the status endpoint until the payment is final. */
export function pixPage(orderId: string, payment: Payment): string {
  const code = payment.pix?.qrCodeText ?? '';
  const image = payment.pix?.qrCode;
  const qr = image && /^(data:image\/|https:\/\/)/.test(image) ? `<p><img alt="Pix QR code" src="${escape(image)}" width="240"></p>` : '';
  return layout(
    'Pay with Pix',
    `<h1>Pay ${escape(formatBRL(payment.amount))} with Pix</h1>
${qr}
<p>Copy this code into your bank's app (Pix copia e cola):</p>
<textarea id="pix-code" readonly>${escape(code)}</textarea>
<p>Status: <strong id="status">${escape(payment.status)}</strong></p>
<script>
const poll = async () => {
  const reply = await fetch(${JSON.stringify(`/orders/${orderId}/status`)});
  const { status } = await reply.json();
  document.getElementById('status').textContent = status;
  if (!['paid', 'failed', 'canceled', 'expired'].includes(status)) setTimeout(poll, 3000);
};
setTimeout(poll, 3000);
</script>`,
  );
}

/** Where the customer lands back from the gateway's checkout page: the order's status as the API has it. */
export function returnPage(orderId: string, payment: Payment): string {
  const outcome: Record<string, string> = {
    paid: 'Thank you: your payment is confirmed.',
    failed: 'The payment was declined. You can try again from the shop.',
    canceled: 'The payment was canceled.',
    expired: 'The payment expired before it was completed.',
  };
  return layout(
    'Your order',
    `<h1>Order ${escape(orderId)}</h1>
<p>Payment status: <strong id="status">${escape(payment.status)}</strong></p>
<p>${escape(outcome[payment.status] ?? 'We are waiting for the confirmation of your payment; this page shows it as soon as it arrives.')}</p>
<p><a href="/">Back to the shop</a></p>`,
  );
}

export function errorPage(title: string, lines: string[]): string {
  return layout(title, `<h1>${escape(title)}</h1>${lines.map((line) => `<p>${escape(line)}</p>`).join('')}<p><a href="/">Back to the shop</a></p>`);
}
