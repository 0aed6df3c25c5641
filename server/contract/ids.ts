import { randomInt } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Unbiased random lowercase base36 string from the CSPRNG. */
export function randomToken(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export type IdPrefix = 'org' | 'prj' | 'env' | 'key' | 'pay' | 'sub' | 'ref' | 'evt' | 'wd' | 'usr' | 'mbr' | 'ses' | 'inv' | 'pwr' | 'aud';

/** Public ids: `<prefix>_` followed by 24 base36 characters (~124 bits). */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomToken(24)}`;

/** The form of a public id of one kind, as a regular expression's source: the OpenAPI document states it for path ids and response ids. */
export const idPattern = (prefix: IdPrefix): string => `^${prefix}_[0-9a-z]{24}$`;

const ID_PATTERN = /^[a-z]+_[0-9a-z]{24}$/;
export const isWellFormedId = (prefix: IdPrefix, value: string): boolean =>
  value.startsWith(`${prefix}_`) && ID_PATTERN.test(value);
