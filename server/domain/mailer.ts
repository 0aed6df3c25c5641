/**
 * How the service reaches a person: one plain-text mail. Invitations and
 * password resets carry single-use links, so the mail is the only place
 * their token appears (people prove their e-mail by receiving it).
 */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Resolves once the mail was handed over (to the SMTP server, or written to the outbox); rejects when it could not be. */
  send(mail: Mail): Promise<void>;
  /**
   * True when mails land in the local outbox (development and the embedded
   * demo, never production): whoever triggered a mail may be shown its link,
   * since nobody else would receive it.
   */
  readonly local: boolean;
  /** The local outbox's newest mails, newest first, as written (empty for SMTP: sent mail is the server's). */
  recent(limit: number): { file: string; text: string }[];
  close(): Promise<void>;
}
