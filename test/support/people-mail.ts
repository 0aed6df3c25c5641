/**
 * Mail for a test service that invites people, as decision 22 allows on each
 * database: on PGlite the embedded demo (SEED_DEMO=true: mail in the local
 * outbox, the invitation's link shown to whoever invited); on PostgreSQL a
 * real SMTP server (smtp-inbox.ts), since a service there mails invitations
 * or refuses them. `link` finds a mailed link wherever it went.
 */
import type { Page } from 'playwright-core';
import { onPostgres } from './database';
import { eventually } from './outbox-events';
import type { TestService } from './service';
import { decoded, startSmtpInbox } from './smtp-inbox';

export interface PeopleMail {
  /** The test service's environment for it. */
  env: Record<string, string>;
  /** True where whoever invites is shown the link (the embedded demo). */
  showsLink: boolean;
  /** The newest link to the dashboard's `page` (`invitation`, `reset-password`) mailed to `email`, waited for. */
  link(service: TestService, email: string, page: string): Promise<string>;
  close(): Promise<void>;
}

const linkTo = (texts: string[], page: string) =>
  texts
    .map((text) => text.match(new RegExp(`https?://\\S+/dashboard/${page}#[A-Za-z0-9_-]{43}`))?.[0])
    .filter((link): link is string => link !== undefined)
    .at(-1);

export async function startPeopleMail(): Promise<PeopleMail> {
  if (!onPostgres) {
    return {
      env: { SEED_DEMO: 'true' },
      showsLink: true,
      link: (service, email, page) =>
        eventually(
          async () => linkTo(service.services.mailer.recent(200).filter((mail) => mail.text.includes(`To: ${email.toLowerCase()}\n`)).map((mail) => mail.text).reverse(), page),
          10_000,
          `a ${page} mail to ${email} in the outbox`,
        ),
      close: async () => {},
    };
  }
  const inbox = await startSmtpInbox();
  return {
    env: { SMTP_URL: inbox.url },
    showsLink: false,
    link: (_service, email, page) => eventually(async () => linkTo(inbox.to(email).map((mail) => decoded(mail.raw)), page), 10_000, `a ${page} mail to ${email} at the SMTP server`),
    close: () => inbox.close(),
  };
}

/**
 * After "Invite" on a dashboard page: the link the invited address received.
 * In the embedded demo the page shows it once (the same link), and the
 * dialog is closed; elsewhere the page only says it was mailed and shows no link.
 */
export async function invitationAfterInvite(page: Page, mail: PeopleMail, service: TestService, email: string): Promise<string> {
  const link = await mail.link(service, email, 'invitation');
  if (mail.showsLink) {
    const shown = (await page.getByLabel('invitation link', { exact: true }).textContent())!.trim();
    if (shown !== link) throw new Error(`the page showed ${shown}, the mail holds ${link}`);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByLabel('invitation link', { exact: true }).waitFor({ state: 'detached' });
  } else {
    await page.getByText(`Invitation mailed to ${email.toLowerCase()}`).waitFor();
    if ((await page.getByLabel('invitation link', { exact: true }).count()) !== 0) throw new Error('the page showed the invitation link outside the embedded demo');
  }
  return link;
}
