/**
 * Encryption at rest for secrets the service must read back (gateway
 * credentials, webhook signing secrets): AES-256-GCM under the master key from
 * configuration, a fresh random IV per value, authenticated so a tampered
 * value fails to open instead of decrypting to garbage.
 * Stored form: `v1.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

export class SecretBox {
  /** Imported once: a raw key buffer would be imported again by every cipher. */
  private readonly key: KeyObject;
  private readonly macKeys = new Map<string, KeyObject>();

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the master key must be 32 bytes');
    this.key = createSecretKey(key);
  }

  /**
   * An HMAC of `value` under a key derived from the master key for this
   * purpose alone (HKDF), so a tag made for one use is worthless for another.
   */
  mac(purpose: string, value: string): string {
    let key = this.macKeys.get(purpose);
    if (!key) {
      key = createSecretKey(Buffer.from(hkdfSync('sha256', this.key, '', purpose, 32)));
      this.macKeys.set(purpose, key);
    }
    return createHmac('sha256', key).update(value).digest('base64url');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  sealJson(value: unknown): string {
    return this.seal(JSON.stringify(value));
  }

  openJson<T = unknown>(sealed: string): T {
    return JSON.parse(this.open(sealed)) as T;
  }
}
