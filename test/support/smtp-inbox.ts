/**
 * A real SMTP server (smtp-server) on an ephemeral port that keeps every mail
 * it is handed, for tests of what the service mails: invitations, password
 * resets, second-factor lock warnings.
 */
import { SMTPServer } from 'smtp-server';

export interface Received {
  to: string[];
  raw: string;
}

export interface SmtpInbox {
  /** `smtp://127.0.0.1:<port>`, for the service's SMTP_URL. */
  url: string;
  mails: Received[];
  /** The mails whose envelope names this address. */
  to(address: string): Received[];
  close(): Promise<void>;
}

/** The plain text of a mail as nodemailer sends it (quoted-printable soft breaks and `=3D` undone). */
export const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

/** The token of the dashboard link to `page` (`/dashboard/<page>#<token>`) in a mail, or null. */
export const linkIn = (mail: Received, page: string) => decoded(mail.raw).match(new RegExp(`https?://\\S+/dashboard/${page}#([A-Za-z0-9_-]{43})`))?.[1] ?? null;

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const mails: Received[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  const port = (smtp.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    to: (address) => mails.filter((mail) => mail.to.includes(address.toLowerCase())),
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
