/**
 * A hosted checkout's return address. The schema has checked its form (an
 * absolute http(s) URL); which scheme is allowed depends on the environment:
 * production sends customers only to `https://`, while a sandbox may also
 * send them to plain `http://` on the developer's own machine (a loopback host).
 */
import type { EnvironmentKind } from '../contract/enums';
import { Refusal } from './refusal';
import { raises } from './raises';

export const RETURN_URL = raises(['invalid_input']);

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const isLoopback = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname) || hostname.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(hostname);

export function assertReturnUrlAllowed(environmentKind: EnvironmentKind, returnUrl: string | undefined): void {
  if (returnUrl === undefined) return;
  const url = new URL(returnUrl);
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && environmentKind === 'sandbox' && isLoopback(url.hostname)) return;
  const message =
    environmentKind === 'sandbox'
      ? 'must be an https:// URL (http:// only for a loopback host such as localhost)'
      : 'must be an https:// URL in a production environment';
  throw new Refusal('invalid_input', { issues: [{ path: ['returnUrl'], message }] });
}
