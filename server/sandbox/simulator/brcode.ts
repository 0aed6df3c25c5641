/**
 * Pix copy-and-paste codes ("BR Codes") and their QR images for the sandbox
 * simulators. A sandbox Pix must survive what a real customer's banking app
 * does with it: read the QR, walk the EMV fields, check the CRC. So the codes
 * follow the EMV merchant-presented layout of the Pix BR Code, static form
 * (a key, an amount and a txid), and the image encodes exactly the text.
 */
import QRCode from 'qrcode';

/** EMV's largest value length: the two-digit length field. */
const MAX_FIELD_LENGTH = 99;
const MAX_MERCHANT_NAME = 25;
const MAX_MERCHANT_CITY = 15;
/** The Pix txid of a static code: letters and digits only, at most 25. */
const MAX_TXID = 25;
/** EMV's amount field: up to 13 characters, "." as the decimal mark. */
const MAX_AMOUNT = 13;
/** Key plus the GUI field must fit in field 26. */
const MAX_PIX_KEY = 77;

export const PIX_GUI = 'br.gov.bcb.pix';
/** ISO 4217 numeric code of the real. */
export const BRL_NUMERIC = '986';

export interface BrCodeInput {
  /** The receiver's Pix key (random key, e-mail, phone, CPF/CNPJ). */
  pixKey: string;
  /** Integer cents, positive. */
  amountCents: number;
  /** Trimmed to 25 characters, made ASCII. */
  merchantName: string;
  /** Trimmed to 15 characters, made ASCII. */
  merchantCity: string;
  /** Letters and digits are kept (at most 25); "***" when nothing is left. */
  txid: string;
  /** ISO 18245 merchant category code; "0000" when not informed. */
  merchantCategoryCode?: string;
}

/** One EMV TLV field: two-digit id, two-digit length, value. */
export function emvField(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new RangeError(`EMV field id must be two digits: ${id}`);
  if (value.length === 0 || value.length > MAX_FIELD_LENGTH) {
    throw new RangeError(`EMV field ${id} must hold 1 to ${MAX_FIELD_LENGTH} characters, got ${value.length}`);
  }
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/**
 * CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection, no
 * final xor) over the UTF-8 bytes, as four upper-case hex digits: the BR
 * Code's field 63.
 */
export function crc16Ccitt(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Banking apps reject names and cities outside plain ASCII: accents are
 * dropped, anything else unprintable becomes a space, then trimmed to the
 * field's length.
 */
export function emvText(text: string, maxLength: number): string {
  const ascii = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const trimmed = ascii.slice(0, maxLength).trim();
  if (trimmed.length === 0) throw new RangeError(`"${text}" has nothing printable to put in a BR Code`);
  return trimmed;
}

/** Integer cents as the EMV amount: reais with exactly two decimals, no float involved. */
export function emvAmount(amountCents: number): string {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError(`amount must be positive integer cents, got ${amountCents}`);
  const text = `${Math.trunc(amountCents / 100)}.${String(amountCents % 100).padStart(2, '0')}`;
  if (text.length > MAX_AMOUNT) throw new RangeError(`amount ${text} does not fit the EMV amount field`);
  return text;
}

/** A txid from any id: the letters and digits it has, at most 25. */
export function pixTxid(id: string): string {
  return id.replace(/[^A-Za-z0-9]/g, '').slice(0, MAX_TXID) || '***';
}

/** The copy-and-paste text of a static Pix BR Code with an amount and a txid. */
export function buildBrCode(input: BrCodeInput): string {
  if (input.pixKey.length === 0 || input.pixKey.length > MAX_PIX_KEY) throw new RangeError('pixKey must hold 1 to 77 characters');
  const mcc = input.merchantCategoryCode ?? '0000';
  if (!/^\d{4}$/.test(mcc)) throw new RangeError(`merchant category code must be four digits, got ${mcc}`);
  const payload = [
    emvField('00', '01'), // payload format indicator
    emvField('01', '12'), // point of initiation: this code is for one payment
    emvField('26', emvField('00', PIX_GUI) + emvField('01', input.pixKey)),
    emvField('52', mcc),
    emvField('53', BRL_NUMERIC),
    emvField('54', emvAmount(input.amountCents)),
    emvField('58', 'BR'),
    emvField('59', emvText(input.merchantName, MAX_MERCHANT_NAME)),
    emvField('60', emvText(input.merchantCity, MAX_MERCHANT_CITY)),
    emvField('62', emvField('05', pixTxid(input.txid))),
  ].join('');
  // The CRC covers everything before it, its own id and length included.
  const withCrcHeader = `${payload}6304`;
  return `${withCrcHeader}${crc16Ccitt(withCrcHeader)}`;
}

/**
 * A PNG of the QR code holding exactly `text`, base64 without a data-URL
 * prefix. Error correction M and a quiet zone of four modules, what phone
 * cameras read best from a screen.
 */
export async function qrPngBase64(text: string): Promise<string> {
  const png = await QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 6 });
  return png.toString('base64');
}

let warmedUp: Promise<unknown> | undefined;

/**
 * The first QR a process renders is several times slower than the next ones
 * (code paths and zlib warming up); simulators pay it once at start so a
 * create answered under a tight client timeout never does.
 */
export function warmUpQr(): Promise<unknown> {
  warmedUp ??= qrPngBase64('000201');
  return warmedUp;
}

/** Where a simulator's Pix money goes: its own sandbox receiver. */
export interface SandboxPixReceiver {
  pixKey: string;
  merchantName: string;
  merchantCity: string;
}

/** The code and its image for one charge of a simulator. */
export async function sandboxPix(receiver: SandboxPixReceiver, chargeId: string, amountCents: number): Promise<{ text: string; pngBase64: string }> {
  const text = sandboxPixCode(receiver, chargeId, amountCents);
  return { text, pngBase64: await qrPngBase64(text) };
}

/** The copy-and-paste code alone, for a simulator that serves its image at a URL. */
export const sandboxPixCode = (receiver: SandboxPixReceiver, chargeId: string, amountCents: number): string =>
  buildBrCode({ ...receiver, amountCents, txid: chargeId });

/**
 * Renders each charge's QR image on its first request and keeps it: a
 * rendering takes milliseconds of CPU, so a gateway that hands out an image
 * URL makes a create cost none of it.
 */
export class QrImages {
  private readonly rendered = new Map<string, Promise<Buffer>>();

  png(key: string, text: string): Promise<Buffer> {
    let image = this.rendered.get(key);
    if (!image) {
      image = qrPngBase64(text).then((base64) => Buffer.from(base64, 'base64'));
      this.rendered.set(key, image);
    }
    return image;
  }
}
