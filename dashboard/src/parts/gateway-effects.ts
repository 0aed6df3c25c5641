/** What a change to a gateway account does to live traffic, in the words its confirmation uses. */
import type { Confirmation, ConfirmTarget } from '../ui/ConfirmButton';

const METHOD_NAMES: Record<string, string> = { PIX: 'Pix', CARD: 'card', SUBSCRIPTION: 'subscription' };

/** The methods whose routing rule names this gateway (first or as a fallback). */
export function methodsRoutedTo(rules: readonly { method: string; gateway: string; gateways?: unknown }[], gateway: string): string[] {
  const order = Object.keys(METHOD_NAMES);
  return [...rules]
    .sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method))
    .filter((rule) => rule.gateway === gateway || (Array.isArray(rule.gateways) && rule.gateways.some((entry) => entry === gateway || (entry as { gateway?: string })?.gateway === gateway)))
    .map((rule) => METHOD_NAMES[rule.method] ?? rule.method);
}

const list = (names: string[]) => (names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

export function gatewaySwitchConfirmation(gateway: string, enable: boolean, methods: string[], target: ConfirmTarget | undefined): Confirmation {
  if (enable) {
    return {
      title: `Enable ${gateway}?`,
      message: methods.length
        ? `New ${list(methods)} payments routed to ${gateway} are sent to it again, from now on.`
        : `No routing rule sends payments to ${gateway} yet; it takes new payments once a rule does.`,
      confirmLabel: `Enable ${gateway}`,
      target,
    };
  }
  return {
    title: `Disable ${gateway}?`,
    message: methods.length
      ? `New ${list(methods)} payments will fail until ${gateway} is enabled again or routing sends them to another gateway. Payments already made at ${gateway} keep being followed.`
      : `No routing rule sends payments to ${gateway}, so no new payment is affected; a rule that names it later will fail while it is disabled.`,
    confirmLabel: `Disable ${gateway}`,
    cancelLabel: 'Keep it enabled',
    danger: methods.length > 0,
    target,
  };
}

export function gatewayConfigureConfirmation(gateway: string, replacing: boolean, target: ConfirmTarget | undefined): Confirmation {
  return {
    title: replacing ? `Replace ${gateway}'s configuration?` : `Configure ${gateway}?`,
    message: replacing
      ? `New payments routed to ${gateway} use these credentials and base URL at once, and the old credentials are discarded: if they are wrong, those payments fail until it is fixed.`
      : `${gateway} can take new payments as soon as a routing rule sends them to it.`,
    confirmLabel: replacing ? 'Replace configuration' : 'Save',
    danger: replacing,
    target,
  };
}

/** Turning a webhook endpoint off or on: what its receiver gets from then on. */
export function endpointSwitchConfirmation(url: string, enable: boolean, target: ConfirmTarget | undefined): Confirmation {
  return enable
    ? {
        title: 'Enable this endpoint?',
        message: `Events from now on are delivered to ${url} again. Events that happened while it was off were not queued for it: read them from GET /v1/events.`,
        confirmLabel: 'Enable endpoint',
        target,
      }
    : {
        title: 'Disable this endpoint?',
        message: `Events from now on are not delivered to ${url}: your receiver stops hearing about payments (payment.paid included) until it is enabled again, and they are not queued for later; they stay readable from GET /v1/events.`,
        confirmLabel: 'Disable endpoint',
        cancelLabel: 'Keep it enabled',
        danger: true,
        target,
      };
}
