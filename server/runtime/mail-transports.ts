/**
 * Where mail goes: an SMTP server (SMTP_URL, through nodemailer), or, with
 * none configured outside production, a local outbox: one file per mail under
 * DATA_DIR/outbox (private to the service's user), which the start banner and
 * the operators' dashboard point to. The SMTP URL carries credentials: it is
 * never logged, and a refusal is reported without it.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Mail, Mailer } from '../domain/mailer';
import { ensurePrivateFolder } from './private-folder';

export const OUTBOX_FOLDER = 'outbox';

export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    local: false,
    async send(mail) {
      try {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      } catch (error) {
        // nodemailer's messages can quote the server's greeting or the command, never the URL; keep only the code.
        const code = (error as { code?: string; responseCode?: number }).responseCode ?? (error as { code?: string }).code ?? 'unknown';
        throw new Error(`the SMTP server did not take the mail (${code})`);
      }
    },
    recent: () => [],
    close: async () => transport.close(),
  };
}

const fileText = (from: string, mail: Mail, at: Date) => `From: ${from}\nTo: ${mail.to}\nDate: ${at.toUTCString()}\nSubject: ${mail.subject}\n\n${mail.text}\n`;

export function outboxMailer(dataDir: string, from: string): Mailer {
  const folder = join(dataDir, OUTBOX_FOLDER);
  return {
    local: true,
    async send(mail) {
      ensurePrivateFolder(folder);
      const at = new Date();
      const name = `${at.toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.txt`;
      writeFileSync(join(folder, name), fileText(from, mail, at), { mode: 0o600 });
    },
    recent: (limit) => readOutbox(folder, limit),
    close: async () => {},
  };
}

/** The outbox's newest mails, newest first (the dashboard's view for operators). */
function readOutbox(folder: string, limit: number): { file: string; text: string }[] {
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.txt'));
  } catch {
    return [];
  }
  return names
    .sort()
    .reverse()
    .slice(0, limit)
    .map((file) => ({ file, text: readFileSync(join(folder, file), 'utf8') }));
}
