/**
 * Where `payments` finds its API key and the service's address: flags, then
 * PAYMENTS_API_KEY / PAYMENTS_URL, then the profile `payments login` stored
 * (`--profile`, PAYMENTS_PROFILE, else `default`).
 *
 * Profiles are kept in `$XDG_CONFIG_HOME/payments/config.json` (~/.config/…
 * without XDG_CONFIG_HOME), the folder 0700 and the file 0600 (tightened if
 * found wider), as other credentials in a home folder are. The file is
 * replaced by a rename, so an interrupted login never leaves half a file.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { MerchantCliError } from './errors';

export interface Profile {
  apiKey: string;
  baseUrl: string;
}

interface ConfigFile {
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';
/** The embedded service's address (`npm start` in the service's repository). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

export function configFile(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'payments', 'config.json');
}

function read(file: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { profiles: {} };
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    return { profiles: parsed.profiles && typeof parsed.profiles === 'object' ? parsed.profiles : {} };
  } catch {
    throw new MerchantCliError('invalid_config', `${file} is not valid JSON; fix it or remove it and run \`payments login\` again.`, 2);
  }
}

export function saveProfile(env: NodeJS.ProcessEnv, name: string, profile: Profile): string {
  const file = configFile(env);
  const dir = join(file, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  const config = read(file);
  config.profiles[name] = profile;
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  chmodSync(file, 0o600);
  return file;
}

export interface GlobalOptions {
  profile?: string;
  apiKey?: string;
  url?: string;
  json?: boolean;
}

/** The key and address a command acts with; a missing key says how to give one. */
export function resolveProfile(options: GlobalOptions, env: NodeJS.ProcessEnv): Profile & { profile: string } {
  const name = options.profile || env.PAYMENTS_PROFILE || DEFAULT_PROFILE;
  const stored = read(configFile(env)).profiles[name];
  if (options.profile && !stored && !options.apiKey) {
    throw new MerchantCliError('unauthorized', `no profile "${name}" in ${configFile(env)}; run \`payments login --profile ${name}\`.`, 4);
  }
  const apiKey = options.apiKey || env.PAYMENTS_API_KEY?.trim() || stored?.apiKey;
  if (!apiKey) throw new MerchantCliError('unauthorized', 'no API key: run `payments login`, or pass --api-key, or set PAYMENTS_API_KEY.', 4);
  const baseUrl = (options.url || env.PAYMENTS_URL || stored?.baseUrl || DEFAULT_BASE_URL).replace(/\/$/, '');
  return { profile: name, apiKey, baseUrl };
}
