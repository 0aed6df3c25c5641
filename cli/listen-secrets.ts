/**
 * The signing secret of `webhook listen` with an API key, kept on this
 * machine so the local receiver is configured once: the next session of the
 * same key signs with the same secret, until `--new-secret` makes another.
 *
 * The secret is made here, never by the service (which only streams the
 * events): the CLI signs each forward with it exactly as the service signs a
 * registered endpoint's deliveries, so the receiver verifies them the same
 * way (the SDK's verifyWebhook).
 *
 * One file per key, `$XDG_CONFIG_HOME/payments-admin/listen-secrets/<id>.json`
 * (`~/.config/…` without XDG_CONFIG_HOME), where `<id>` is a hash of the key:
 * the key itself is never written. The folder is 0700 and the file 0600
 * (tightened if found wider), like other credentials in a home folder. The
 * file is created exclusively, so two first sessions at once agree on one
 * secret; `--new-secret` replaces it by a rename, never leaving half a file.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { newSigningSecret } from '../server/contract/webhook-signature';
import { CliError } from './errors';

/** The folder name under the user's config folder. */
export const CONFIG_FOLDER = 'payments-admin';

const SECRET_PATTERN = /^whsec_[0-9a-z]{16,}$/;

/** The user's config folder for this CLI: XDG_CONFIG_HOME when set to an absolute path (as the XDG spec says), else ~/.config. */
export function configDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), CONFIG_FOLDER);
}

export interface ListenSecret {
  secret: string;
  /** Where it is kept. */
  file: string;
  /** Made by this session (first use of the key here, or --new-secret). */
  made: boolean;
}

export function listenSecretFor(apiKey: string, options: { renew: boolean; env: NodeJS.ProcessEnv }): ListenSecret {
  const dir = join(configDir(options.env), 'listen-secrets');
  const file = join(dir, `${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}.json`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw cannotKeep(dir, error);
  }
  if (!options.renew) {
    const kept = readSecret(file);
    if (kept) return { secret: kept, file, made: false };
  }
  const secret = newSigningSecret();
  const body = `${JSON.stringify({ keyPrefix: apiKey.slice(0, 12), secret, createdAt: new Date().toISOString() }, null, 2)}\n`;
  try {
    if (options.renew) {
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, body, { flag: 'wx', mode: 0o600 });
      try {
        renameSync(temporary, file);
      } catch (error) {
        unlinkSync(temporary);
        throw error;
      }
    } else {
      writeFileSync(file, body, { flag: 'wx', mode: 0o600 });
    }
  } catch (error) {
    // Another first session of this key wrote it in the meantime: use that one, so both sign alike.
    if ((error as { code?: string }).code === 'EEXIST' && !options.renew) {
      const kept = readSecret(file);
      if (kept) return { secret: kept, file, made: false };
    }
    throw cannotKeep(file, error);
  }
  return { secret, file, made: true };
}

/** The kept secret, or null when there is none yet. */
function readSecret(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw cannotKeep(file, error);
  }
  let secret: unknown;
  try {
    secret = (JSON.parse(text) as { secret?: unknown }).secret;
  } catch {
    secret = undefined;
  }
  // The message names the file, never its content.
  if (typeof secret !== 'string' || !SECRET_PATTERN.test(secret)) {
    throw new CliError('error', `${file} does not hold a listen signing secret; remove it, or pass --new-secret to write a new one.`);
  }
  // Readable by others (copied, restored from a backup): back to the owner alone.
  try {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  } catch {
    // Another owner's file: left as it is; the secret in it still works.
  }
  return secret;
}

function cannotKeep(path: string, error: unknown): CliError {
  const code = (error as { code?: string }).code ?? 'error';
  return new CliError('error', `cannot keep the listen signing secret in ${path} (${code}); set XDG_CONFIG_HOME to a folder you can write.`);
}
