/**
 * Log-in throttle. Every attempt is counted before its password is checked,
 * by one atomic increment per window, so a burst sent at once is counted one
 * by one and no more than the limit are ever evaluated (counting only after a
 * failed check let 39 guesses sent together all through).
 *
 * Windows: per e-mail and client (guessing one person's password), and per
 * client address (spraying many accounts). A browser that has logged in as
 * this e-mail before (a trusted-device cookie, trusted-devices.ts) is its own
 * client and is not counted with its address: many failures from one shared
 * address (an office, a reverse proxy without TRUST_PROXY) lock out strangers
 * from that address, never the people who have logged in there before.
 *
 * The counters live where the rate limits live (Redis with REDIS_URL, shared
 * by every node; memory on the embedded single node): see
 * runtime/login-throttle-stores.ts.
 */

/** Attempts of one e-mail from one client in 15 minutes. */
export const EMAIL_FAILURES = { points: 5, seconds: 15 * 60 };
/** Attempts from one address in an hour, whatever the e-mail (a success gives its attempt back). */
export const ADDRESS_FAILURES = { points: 50, seconds: 60 * 60 };

/**
 * Invitations (the same counters, operator/members.ts): one organization's in an
 * hour, to anyone, so an owner cannot turn the service into a mailer…
 */
export const INVITATIONS_PER_ORGANIZATION = { points: 30, seconds: 60 * 60 };
/** …and its invitations to one address in an hour: a resend or two, never a flooded mailbox. */
export const INVITATIONS_PER_ADDRESS = { points: 3, seconds: 60 * 60 };

/** Who tries: the e-mail, the client's address, and the trusted device it proved (null: none). */
export interface LoginClient {
  email: string;
  address: string;
  /** The id of a valid trusted-device cookie issued for this e-mail, or null. */
  device: string | null;
}

export interface LoginThrottle {
  /**
   * Counts one attempt, before anything is checked. Answers 0 when it may be
   * evaluated, else the seconds to wait (the attempt is refused unevaluated).
   */
  attempt(client: LoginClient): Promise<number>;
  /** The password was right: this client's attempts at this e-mail are forgotten, and its address gets the attempt back. */
  succeeded(client: LoginClient): Promise<void>;
  /**
   * Counts one invitation from the organization to the (normalized) address,
   * before anything is looked up or mailed: 0 when it may go, else the seconds to wait.
   */
  invitation(organizationId: string, email: string): Promise<number>;
  close(): Promise<void>;
}
