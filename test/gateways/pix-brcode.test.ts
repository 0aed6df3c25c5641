/**
 * Sandbox Pix codes must be what a banking app accepts: a BR Code that an
 * independent decoder (pix-utils) parses and whose CRC it checks, with EMV
 * fields of consistent lengths, and a QR image that reads back to exactly the
 * copy-and-paste text.
 */
import jsQR from 'jsqr';
import { hasError, parsePix, type PixObjects } from 'pix-utils';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentSnapshot } from '../../server/gateways/adapter';
import { buildBrCode, crc16Ccitt, emvAmount, emvText, pixTxid } from '../../server/sandbox/simulator/brcode';
import { CUSTOMER, startGateway, type GatewayUnderTest } from '../support/gateway-harness';

interface Tlv {
  id: string;
  value: string;
}

/** A strict EMV TLV walk: every length must cover exactly its value, nothing may be left over. */
function tlvs(text: string): Tlv[] {
  const fields: Tlv[] = [];
  let at = 0;
  while (at < text.length) {
    const header = text.slice(at, at + 4);
    expect(header, `TLV header at ${at}`).toMatch(/^\d{4}$/);
    const length = Number(header.slice(2));
    expect(length, `field ${header.slice(0, 2)} length`).toBeGreaterThan(0);
    expect(at + 4 + length, `field ${header.slice(0, 2)} overruns the payload`).toBeLessThanOrEqual(text.length);
    fields.push({ id: header.slice(0, 2), value: text.slice(at + 4, at + 4 + length) });
    at += 4 + length;
  }
  return fields;
}

const field = (fields: Tlv[], id: string) => fields.find((f) => f.id === id)?.value;

/** Checks the code's layout field by field, independently of the builder. */
function expectValidBrCode(text: string, amountCents: number, txid: string): void {
  expect(text).toMatch(/^[\x20-\x7e]+$/);
  const fields = tlvs(text);
  expect(fields.map((f) => f.id)).toEqual(['00', '01', '26', '52', '53', '54', '58', '59', '60', '62', '63']);
  expect(field(fields, '00')).toBe('01');
  const account = tlvs(field(fields, '26')!);
  expect(account[0]).toEqual({ id: '00', value: 'br.gov.bcb.pix' });
  expect(account[1]?.id).toBe('01');
  expect(account[1]?.value.length).toBeGreaterThan(0);
  expect(field(fields, '52')).toMatch(/^\d{4}$/);
  expect(field(fields, '53')).toBe('986');
  expect(field(fields, '54')).toBe((amountCents / 100).toFixed(2));
  expect(field(fields, '58')).toBe('BR');
  expect(field(fields, '59')!.length).toBeLessThanOrEqual(25);
  expect(field(fields, '60')!.length).toBeLessThanOrEqual(15);
  expect(tlvs(field(fields, '62')!)).toEqual([{ id: '05', value: txid }]);
  // The CRC is the last field and covers everything up to and including its own "6304".
  expect(text.slice(-8, -4)).toBe('6304');
  expect(field(fields, '63')).toBe(crc16Ccitt(text.slice(0, -4)));
}

function expectPixUtilsAccepts(text: string, amountCents: number, txid: string): PixObjects {
  const parsed = parsePix(text);
  if (hasError(parsed)) throw new Error(`pix-utils refused ${text}: ${parsed.message}`);
  expect(parsed).toMatchObject({ type: 'STATIC', transactionCurrency: '986', countryCode: 'BR', transactionAmount: amountCents / 100, txid });
  return parsed;
}

/** Decodes a PNG (data URL or bare base64) and reads its QR code. */
/** The image a `qrCode` names, a `data:image/png;base64,…` URL or an http URL of a PNG, decoded back to its text. */
async function readQr(image: string): Promise<string> {
  let bytes: Buffer;
  if (image.startsWith('data:')) {
    expect(image.slice(0, image.indexOf(','))).toBe('data:image/png;base64');
    bytes = Buffer.from(image.slice(image.indexOf(',') + 1), 'base64');
  } else {
    const response = await fetch(image);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    bytes = Buffer.from(await response.arrayBuffer());
  }
  const png = PNG.sync.read(bytes);
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  if (!decoded) throw new Error('no QR code found in the image');
  return decoded.data;
}

describe('the BR Code builder', () => {
  it('computes CRC-16/CCITT-FALSE (poly 0x1021, initial 0xFFFF)', () => {
    // The catalogue check value of this CRC.
    expect(crc16Ccitt('123456789')).toBe('29B1');
    expect(crc16Ccitt('')).toBe('FFFF');
  });

  it('writes amounts as reais with exactly two decimals from integer cents', () => {
    expect([1, 10, 99, 100, 1_990, 123_456_789].map(emvAmount)).toEqual(['0.01', '0.10', '0.99', '1.00', '19.90', '1234567.89']);
    expect(() => emvAmount(0)).toThrow();
    expect(() => emvAmount(1.5)).toThrow();
    expect(() => emvAmount(10_000_000_000_000)).toThrow();
  });

  it('makes names and cities ASCII and trims them to their EMV lengths', () => {
    const text = buildBrCode({
      pixKey: 'loja@example.com',
      amountCents: 1_990,
      merchantName: '  Padaria Pão de Açúcar & Confeitaria Ltda  ',
      merchantCity: 'São José dos Campos',
      txid: 'pay_A-1',
    });
    const fields = tlvs(text);
    expect(field(fields, '59')).toBe('Padaria Pao de Acucar & C');
    expect(field(fields, '60')).toBe('Sao Jose dos Ca');
    expectValidBrCode(text, 1_990, 'payA1');
    expectPixUtilsAccepts(text, 1_990, 'payA1');
    expect(emvText('Ünïcödé\n\tname', 25)).toBe('Unicode name');
    expect(() => emvText('日本', 25)).toThrow();
  });

  it('keeps only letters and digits of a txid, at most 25', () => {
    expect(pixTxid('cob_Ab-9_z')).toBe('cobAb9z');
    expect(pixTxid('x'.repeat(40))).toHaveLength(25);
    expect(pixTxid('___')).toBe('***');
  });

  it('refuses a field that does not fit EMV', () => {
    const base = { amountCents: 100, merchantName: 'Loja', merchantCity: 'Recife', txid: 't1' };
    expect(() => buildBrCode({ ...base, pixKey: '' })).toThrow();
    expect(() => buildBrCode({ ...base, pixKey: 'k'.repeat(78) })).toThrow();
    expect(() => buildBrCode({ ...base, pixKey: 'k', merchantCategoryCode: '12' })).toThrow();
  });
});

describe.each(['gateway_a', 'gateway_b'] as const)('%s sandbox Pix', (name) => {
  let gw: GatewayUnderTest;
  let seq = 0;
  const create = (amount: number) =>
    gw.adapter.createPayment({ idempotencyKey: `pix-${name}-${++seq}`, amount, method: 'pix', customer: CUSTOMER, description: 'Pedido 42' });

  beforeAll(async () => {
    gw = await startGateway(name);
  });
  afterAll(async () => {
    await gw.close();
  });

  const amounts = [1, 99, 1_990, 12_345, 100_000_00];

  it.each(amounts)('a Pix of %i cents is a valid BR Code that pix-utils accepts', async (amount) => {
    const payment = await create(amount);
    const text = payment.pix!.qrCodeText;
    expectValidBrCode(text, amount, pixTxid(payment.gatewayRef));
    const parsed = expectPixUtilsAccepts(text, amount, pixTxid(payment.gatewayRef));
    expect(parsed).toMatchObject({ merchantCategoryCode: '0000', pixKey: expect.any(String), merchantName: expect.stringMatching(/^Gateway (A Sandbox|B Cobrancas)$/) });
  });

  it('its QR image reads back to exactly the copy-and-paste text', async () => {
    for (const amount of [1, 1_990, 100_000_00]) {
      const payment: PaymentSnapshot = await create(amount);
      // gateway_a hands out the image's URL, gateway_b the image itself.
      expect(payment.pix!.qrCode).toMatch(name === 'gateway_a' ? /^http:\/\/127\.0\.0\.1:\d+\/pix\/pi_[\w-]+\/qr\.png$/ : /^data:image\/png;base64,/);
      expect(await readQr(payment.pix!.qrCode)).toBe(payment.pix!.qrCodeText);
    }
  });

  it('a sync reads the same code and image again', async () => {
    const payment = await create(2_500);
    const synced = await gw.adapter.getPayment(payment.gatewayRef);
    expect(synced.pix).toEqual(payment.pix);
  });

  it('two charges never share a code', async () => {
    const [first, second] = [await create(500), await create(500)];
    expect(first.pix!.qrCodeText).not.toBe(second.pix!.qrCodeText);
  });
});
