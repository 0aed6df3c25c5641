/**
 * Dashboard passwords, hashed with scrypt (memory-hard: every guess costs
 * 32 MiB and tens of milliseconds), a random salt per user. The stored form
 * names its parameters, `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, so they can
 * rise later: a hash made with weaker ones is replaced at the next log-in.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCallback(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));

interface Params {
  logN: number;
  r: number;
  p: number;
}

/** What new hashes use. N = 2^15, r = 8: 32 MiB per hash. */
export const CURRENT: Params = { logN: 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
/** Stored hashes with parameters beyond these are refused rather than allowed to exhaust memory. */
const MAX_LOG_N = 20;

/** scrypt needs 128·N·r bytes; node refuses above `maxmem` (32 MiB by default, exactly our need), so leave room. */
const maxmem = ({ logN, r }: Params) => 2 * 128 * 2 ** logN * r;

export async function hashPassword(password: string, params: Params = CURRENT): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { N: 2 ** params.logN, r: params.r, p: params.p, maxmem: maxmem(params) });
  return ['scrypt', params.logN, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(stored: string): (Params & { salt: Buffer; key: Buffer }) | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every(Number.isInteger) || logN < 1 || logN > MAX_LOG_N || r < 1 || r > 32 || p < 1 || p > 16) return null;
  return { logN, r, p, salt: Buffer.from(parts[4]!, 'base64url'), key: Buffer.from(parts[5]!, 'base64url') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await scrypt(password, parsed.salt, parsed.key.length, { N: 2 ** parsed.logN, r: parsed.r, p: parsed.p, maxmem: maxmem(parsed) });
  return timingSafeEqual(key, parsed.key);
}

/** True when the hash was made with other parameters than today's (rehash it after a successful log-in). */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.logN !== CURRENT.logN || parsed.r !== CURRENT.r || parsed.p !== CURRENT.p;
}

/**
 * A hash no password matches, checked when the e-mail is unknown so that
 * answer takes as long as a wrong password (no probing for who has an account).
 */
let dummy: Promise<string> | undefined;
export const dummyHash = (): Promise<string> => (dummy ??= hashPassword(randomBytes(32).toString('base64url')));
